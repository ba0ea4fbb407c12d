#pragma once
/// The results database. SQLite by default; the interface keeps the engine out of every caller.
/// Every method throws store_error with the statement's context on failure.
#include "arbiter/store/records.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::store {

class store {
 public:
  virtual ~store() = default;

  /// Inserts or finds by fingerprint.
  virtual std::int64_t upsert_hardware(const hardware_record& hw) = 0;
  /// Sets top-level keys of a hardware row's JSON (e.g. `peaks` after a calibration): each key of
  /// object_json replaces the stored key of that name, the other keys stay; the fingerprint and
  /// the other columns never change. Throws store_error for an unknown id or for object_json
  /// that is not a JSON object.
  virtual void merge_hardware_json(std::int64_t hardware_id, const std::string& object_json) = 0;
  /// Inserts or finds by (suite, key, hash).
  virtual std::int64_t upsert_problem(const problem_record& problem) = 0;
  /// Inserts or finds by name.
  virtual std::int64_t upsert_model(const std::string& name, const std::string& org) = 0;
  /// Inserts or finds by (problem, model, sample, hash).
  virtual std::int64_t upsert_solution(std::int64_t problem_id, std::int64_t model_id, const solution_record& solution) = 0;

  /// Returns the campaign named wanted.name if it exists (its stored seeds win), else creates it.
  virtual campaign_record open_campaign(const campaign_record& wanted) = 0;
  virtual void set_campaign_status(std::int64_t campaign_id, const std::string& status) = 0;
  virtual std::optional<campaign_record> find_campaign(const std::string& name) = 0;
  /// Most recent first.
  virtual std::vector<campaign_record> campaigns() = 0;
  /// Records the problems a campaign covers (idempotent), so that problem_count counts problems
  /// no model has a solution for. Throws store_error for an unknown campaign or problem id.
  /// Not pure, so that test doubles need not care; the base records nothing.
  virtual void add_campaign_problems(std::int64_t /*campaign_id*/, const std::vector<std::int64_t>& /*problem_ids*/) {}

  /// A finished evaluation of this solution in this campaign, if any (resume skips it).
  virtual std::optional<std::int64_t> finished_evaluation(std::int64_t campaign_id, std::int64_t solution_id) = 0;
  /// Creates (or restarts an unfinished) evaluation row in state "running"; returns its id.
  /// A restart clears the row's result, measurements and findings. Throws store_error when the
  /// evaluation is already done (check finished_evaluation first).
  virtual std::int64_t begin_evaluation(std::int64_t campaign_id, std::int64_t solution_id) = 0;
  /// Stores the result and its measurements in one transaction; state becomes "done".
  /// Replaces any measurements already stored for it. Throws store_error for an unknown id.
  virtual void finish_evaluation(std::int64_t evaluation_id, const evaluation_result& result) = 0;
  /// Replaces a finished evaluation's judgement with `result`'s (`arbiter rejudge`): verdict,
  /// reason, speedup, details, guard version, measurements and findings, in one transaction; its
  /// wall time, artifacts, times and the solution's facts stay. Throws store_error for an id that
  /// is not a finished evaluation. Not pure, so that test doubles need not care; the base throws.
  virtual void rejudge_evaluation(std::int64_t evaluation_id, const evaluation_result& result);

  virtual std::optional<evaluation_view> evaluation(std::int64_t evaluation_id) = 0;
  /// Finished evaluations of one campaign.
  virtual std::vector<result_row> results(std::int64_t campaign_id) = 0;
  /// Number of distinct problems (by key) the campaign covers: those added with
  /// add_campaign_problems and those any of its evaluations is for.
  virtual std::int64_t problem_count(std::int64_t campaign_id) = 0;
  /// How the campaign's passed evaluations were timed: one entry per distinct (role, baseline,
  /// clock, method) of their measurements, with how many, most first. Not pure, so that test
  /// doubles need not care; the base knows of none.
  virtual std::vector<timing_method_count> timing_methods(std::int64_t /*campaign_id*/) { return {}; }

  // ---- reads for the web pages and exports. Not pure, so that test doubles need not care; the
  // base throws store_error. Readers never write, so they are safe beside a running campaign (WAL).

  /// Every hardware fingerprint, oldest first.
  virtual std::vector<hardware_view> hardware_list();
  /// The campaign with this id, if any.
  virtual std::optional<campaign_record> campaign(std::int64_t campaign_id);
  /// The problems a campaign covers (registered or evaluated), ordered by key; one per key (the newest hash).
  virtual std::vector<problem_view> campaign_problems(std::int64_t campaign_id);
  /// The one of campaign_problems with this key, if the campaign covers it.
  virtual std::optional<problem_view> campaign_problem(std::int64_t campaign_id, const std::string& key);
  /// Every evaluation of a campaign, running or done, ordered by model, problem, sample.
  virtual std::vector<evaluation_row> evaluation_rows(std::int64_t campaign_id);
  /// The evaluations of one problem (by key) in a campaign, running or done, ordered by model and
  /// sample, each with its measurements and findings: three statements whatever their number.
  virtual std::vector<evaluation_detail> problem_evaluations(std::int64_t campaign_id, const std::string& problem_key);
  /// A number that changes whenever another connection commits (SQLite's data_version): cheap
  /// change detection for live pages.
  virtual std::int64_t data_version();
};

/// Opens (creating if needed) the database at `location` and applies pending migrations.
/// A plain path selects SQLite; "postgresql://..." throws config_error (not in this build).
/// Throws store_error when the database cannot be opened or is newer than this build.
std::unique_ptr<store> open_store(const std::string& location);

} // namespace arbiter::store
