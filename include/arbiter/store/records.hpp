#pragma once
/// Plain records that cross the store interface. Ids are database row ids.
#include "arbiter/common/verdict.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace arbiter::store {

struct hardware_record {
  std::string fingerprint; ///< stable digest of the fields below; unique
  std::string device;      ///< "cpu" | "cuda"
  std::string gpu_name;    ///< empty on cpu
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  std::string driver, cuda, torch, python, host;
  std::string json; ///< everything the doctor found, as JSON
};

struct problem_record {
  std::string suite;
  std::string key; ///< problem id, unique within the suite
  std::string hash;
  std::string title;
  int level = 1;
  std::string json; ///< the parsed problem.toml, as JSON
};

struct solution_record {
  std::string model;
  int sample = 0; ///< 0 for the top-level kernel.py, n for numbered sub-folder n
  std::string hash;
  std::string path;
  std::string meta_json; ///< meta.json contents, or "{}"
};

struct campaign_record {
  std::int64_t id = 0;
  std::string name; ///< unique; re-using a name resumes the campaign
  std::string suite;
  std::string device;
  std::int64_t hardware_id = 0;
  std::string config_json;
  std::vector<std::uint64_t> seeds; ///< secret input seeds, drawn once at creation
  std::string status;               ///< "running" | "finished"
  std::string created_at;
};

/// One timing of one shape: the candidate's, or a baseline's.
struct measurement_record {
  std::string shape;
  std::string role;     ///< "candidate" | "baseline"
  std::string baseline; ///< "eager" for the reference; empty for the candidate
  std::string clock;    ///< "cuda_event" | "cupti" | "steady_clock" (timing_kind.hpp)
  double median_ms = 0, p10_ms = 0, p90_ms = 0, mean_ms = 0, rel_noise = 0;
  std::int64_t samples = 0;
  std::optional<double> speedup; ///< candidate rows only: baseline median / candidate median
  std::string
      method; ///< timing_kind.hpp: "cupti_span" | "held_events" | "events" | "steady_clock" | "outside_cpu" ("" before migration 3)
  std::optional<double> host_median_ms; ///< host latency beside the device time (cuda)
  std::int64_t throttled = 0;           ///< samples discarded because the device throttled
  std::optional<double> sm_clock_mhz;   ///< median SM clock of the samples (NVML); none on cpu or without NVML
  std::int64_t power_capped = 0;        ///< samples kept that ran under the software power cap
};

/// How many of a campaign's stored timings of passed evaluations were taken one way: what the
/// leaderboard says it ranks by (score::describe_ranking).
struct timing_method_count {
  std::string role;     ///< "candidate" | "baseline"
  std::string baseline; ///< baseline rows: "eager"; empty for the candidate
  std::string clock;    ///< "cuda_event" | "cupti" | "steady_clock" (timing_kind.hpp)
  std::string
      method; ///< "cupti_span" | "held_events" | "events" | "steady_clock" | "outside_cpu" | "" (stored before migration 3)
  std::int64_t count = 0;
};

/// A guard finding as stored: pattern id (T1..H7), severity ("info" | "flag" | "reject"),
/// evidence as one line a person can read, and where it came from ("static" | "dynamic").
struct finding_record {
  std::string pattern;
  std::string severity;
  std::string evidence;
  std::string source;
};

/// What an evaluation produced; written once when it finishes.
struct evaluation_result {
  outcome result;
  std::optional<double> speedup; ///< geometric mean over shapes, passed only
  double wall_s = 0;
  std::string details_json; ///< per-case correctness, weights mode, runner facts
  std::string artifacts_dir;
  std::vector<measurement_record> measurements;
  std::vector<finding_record> findings; ///< the guard's; stored in the finding table
  std::string facts_json;               ///< the solution's static facts; stored per solution when not empty
  std::string guard_version;            ///< the guard it was judged under (guard::guard_version()); "" before migration 5
};

/// A stored evaluation with what identifies it, for `show` and reports.
struct evaluation_view {
  std::int64_t id = 0;
  std::int64_t campaign_id = 0;
  std::string campaign;
  std::string suite;
  std::string problem;
  std::string model;
  int sample = 0;
  std::string solution_path;
  std::string solution_hash;
  std::string status; ///< "running" | "done"
  evaluation_result result;
  std::string started_at, finished_at;
};

/// One finished evaluation, flattened for scoring.
struct result_row {
  std::string model;
  std::string problem;
  int sample = 0;
  verdict v = verdict::crashed;
  std::optional<double> speedup;
};

/// A stored hardware fingerprint with its row id (the web pages' hardware view).
struct hardware_view {
  std::int64_t id = 0;
  hardware_record record;
  std::string created_at;
};

/// A stored problem with its row id.
struct problem_view {
  std::int64_t id = 0;
  problem_record record;
};

/// One evaluation of a campaign, running or done, flattened for listings (web pages, exports).
struct evaluation_row {
  std::int64_t id = 0;
  std::int64_t solution_id = 0;
  std::string problem; ///< problem key
  std::string model;
  std::string org;
  int sample = 0;
  std::string status;       ///< "running" | "done"
  std::optional<verdict> v; ///< empty while running
  std::string reason;
  std::optional<double> speedup;
  double wall_s = 0;
  std::string solution_path;
  std::string solution_hash;
  std::string meta_json; ///< the solution's meta.json, or "{}"
  std::string finished_at;
  std::string guard_version; ///< the guard it was judged under; "" while running or before migration 5
};

/// An evaluation_row with its timings and guard findings (the problem page).
struct evaluation_detail {
  evaluation_row row;
  std::vector<measurement_record> measurements; ///< in the order they were stored
  std::vector<finding_record> findings;         ///< in the order they were stored
};

} // namespace arbiter::store
