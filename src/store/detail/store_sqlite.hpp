#pragma once
/// The SQLite implementation of store::store. Private: callers get it through open_store().
#include "arbiter/common/error.hpp"
#include "arbiter/store/store.hpp"
#include "detail/sqlite.hpp"

namespace arbiter::store::detail {

class sqlite_store final : public store {
 public:
  /// Opens the file and applies pending migrations. Throws store_error.
  explicit sqlite_store(const std::string& path);

  std::int64_t upsert_hardware(const hardware_record& hw) override;
  void merge_hardware_json(std::int64_t hardware_id, const std::string& object_json) override;
  std::int64_t upsert_problem(const problem_record& problem) override;
  std::int64_t upsert_model(const std::string& name, const std::string& org) override;
  std::int64_t upsert_solution(std::int64_t problem_id, std::int64_t model_id, const solution_record& solution) override;

  campaign_record open_campaign(const campaign_record& wanted) override;
  void set_campaign_status(std::int64_t campaign_id, const std::string& status) override;
  std::optional<campaign_record> find_campaign(const std::string& name) override;
  std::vector<campaign_record> campaigns() override;
  void add_campaign_problems(std::int64_t campaign_id, const std::vector<std::int64_t>& problem_ids) override;

  std::optional<std::int64_t> finished_evaluation(std::int64_t campaign_id, std::int64_t solution_id) override;
  std::int64_t begin_evaluation(std::int64_t campaign_id, std::int64_t solution_id) override;
  void finish_evaluation(std::int64_t evaluation_id, const evaluation_result& result) override;
  void rejudge_evaluation(std::int64_t evaluation_id, const evaluation_result& result) override;

  std::optional<evaluation_view> evaluation(std::int64_t evaluation_id) override;
  std::vector<result_row> results(std::int64_t campaign_id) override;
  std::int64_t problem_count(std::int64_t campaign_id) override;
  std::vector<timing_method_count> timing_methods(std::int64_t campaign_id) override;

  std::vector<hardware_view> hardware_list() override;
  std::optional<campaign_record> campaign(std::int64_t campaign_id) override;
  std::vector<problem_view> campaign_problems(std::int64_t campaign_id) override;
  std::optional<problem_view> campaign_problem(std::int64_t campaign_id, const std::string& key) override;
  std::vector<evaluation_row> evaluation_rows(std::int64_t campaign_id) override;
  std::vector<evaluation_detail> problem_evaluations(std::int64_t campaign_id, const std::string& problem_key) override;
  std::int64_t data_version() override;

 private:
  /// Runs `select` (one id column) after binding `args`; throws store_error if it finds nothing.
  template <typename... Args>
  std::int64_t find_id(std::string_view select, const std::string& purpose, const Args&... args) {
    statement query(m_db, select, purpose);
    query.bind_all(args...);
    if (!query.step()) ARB_THROW(store_error, purpose + ": row missing after insert (" + m_db.path() + ")");
    return query.get_int64(0);
  }
  void insert_measurements(std::int64_t evaluation_id, const std::vector<measurement_record>& rows);
  /// An evaluation's measurements and findings replaced by result's (inside the caller's transaction).
  void replace_judged_rows(std::int64_t evaluation_id, const evaluation_result& result, const std::string& what);

  database m_db;
};

} // namespace arbiter::store::detail
