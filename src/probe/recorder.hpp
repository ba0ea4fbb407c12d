#pragma once
/// The probe's bookkeeping, free of CUPTI so that it is tested without a GPU: windows opened and
/// closed by the runtime, activity records attributed to them by correlation id, counters of
/// contexts, streams, modules and graphs. injection.cpp and activity.cpp feed it from CUPTI's
/// callbacks; evidence_json.cpp writes what it holds (docs/probe.md).
#include <array>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::probe {

inline constexpr std::size_t k_max_kernel_details = 4096; ///< kernels listed one by one
inline constexpr std::size_t k_max_windows = 65536;       ///< later windows are counted, not kept
inline constexpr std::size_t k_max_label = 64;
inline constexpr std::size_t k_max_name = 256;
inline constexpr std::size_t k_max_witness_notes = 8;  ///< disabled callbacks described one by one
inline constexpr std::size_t k_max_outside_gaps = 256; ///< (label, group) pairs counted apart outside windows
inline constexpr std::uint32_t k_open = std::numeric_limits<std::uint32_t>::max();

/// Where and when a kernel ran.
struct kernel_run {
  std::uint32_t stream = 0;
  std::uint32_t context = 0;
  std::uint32_t device = 0;
  std::array<std::int32_t, 3> grid{};
  std::array<std::int32_t, 3> block{};
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

/// A kernel as CUPTI reports it; name is the mangled name, valid only during the call.
struct kernel_record {
  const char* name = nullptr;
  std::uint32_t correlation = 0;
  kernel_run run;
};

/// A copy or a memset: where and when it ran.
struct transfer_record {
  std::uint32_t correlation = 0;
  std::uint32_t stream = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

struct window_stats {
  std::string label;
  std::int64_t group = -1;
  std::int64_t index = 0;
  std::uint64_t begin_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t first_correlation = 0;     ///< the first correlation id that may belong to it
  std::uint32_t last_correlation = k_open; ///< the last, once closed
  std::int64_t harness_stream = -1;        ///< CUPTI stream id; -1 when it could not be mapped
  std::uint64_t launches = 0;              ///< launch API calls (kernels and graphs)
  // The callback API's own count, attributed by correlation id like the records: kernel launch calls
  // (graphs apart) and copy or memset calls that returned success. Each such launch makes one
  // kernel record, so fewer records than launches means the activity record was switched off.
  std::uint64_t api_kernel_launches = 0;
  std::uint64_t api_transfers = 0;
  std::uint64_t captures = 0;        ///< stream captures begun in it (a captured launch runs nothing)
  std::uint64_t harness_kernels = 0; ///< the runtime's own (its stream hold), not counted below
  std::uint64_t graph_launches = 0;
  std::uint64_t kernels = 0;
  std::uint64_t copies = 0;
  std::uint64_t memsets = 0;
  // Its device work, kernels, copies and memsets alike: their durations summed, the first start
  // and the last end, the streams they ran on (in order of first use).
  std::uint64_t busy_ns = 0;
  std::uint64_t first_start_ns = 0; ///< 0 while no work
  std::uint64_t last_end_ns = 0;
  std::vector<std::uint32_t> streams;
  std::uint64_t off_stream_kernels = 0;
  std::uint64_t off_stream_transfers = 0; ///< copies and memsets on other streams
  std::uint64_t after_end_kernels = 0;
  std::uint64_t after_end_transfers = 0;
  std::uint64_t after_end_max_ns = 0;               ///< how far the latest of them ended past end_ns
  std::int64_t threads = -1;                        ///< tasks of the process at the window's end
  std::vector<std::uint64_t> pending_ends;          ///< end times of kernels seen while it was open
  std::vector<std::uint64_t> pending_transfer_ends; ///< and of copies and memsets

  bool open() const { return last_correlation == k_open; }
  std::uint64_t work() const { return kernels + copies + memsets; }
  std::uint64_t span_ns() const { return work() == 0 ? 0 : last_end_ns - first_start_ns; }
};

/// Kernels outside every window, by the window before them (label "" and group -1: before any).
struct outside_gap {
  std::string label;
  std::int64_t group = -1;
  std::uint64_t kernels = 0;
  std::uint64_t busy_ns = 0;
};

/// The probe checking itself at each marker: its callbacks found disabled, markers that did not
/// carry the run's token, claims of the token after the first (arbiter_probe.h).
struct witness_stats {
  std::uint64_t checks = 0;             ///< markers at which callbacks and activity kinds were re-asserted
  std::uint64_t callbacks_disabled = 0; ///< callbacks found disabled (or whose state could not be read)
  std::vector<std::string> notes;       ///< the first k_max_witness_notes of them, where
  std::uint64_t forged_markers = 0;     ///< begin/end/write calls with a wrong token: ignored
  std::uint64_t refused_claims = 0;     ///< token claims after the first
};

struct kernel_detail {
  std::string name; ///< demangled, at most k_max_name bytes
  kernel_run run;
  std::int64_t window = -1;
};

/// Everything the probe knows; what evidence_json.cpp writes.
struct evidence {
  std::uint64_t contexts = 0;
  std::vector<std::uint32_t> streams_created;
  std::uint64_t modules_loaded = 0;
  std::uint64_t graphs_created = 0;
  std::uint64_t graphs_instantiated = 0;
  std::uint64_t graphs_launched = 0;
  std::uint64_t captures = 0;
  std::uint64_t kernels = 0;
  std::uint64_t harness_kernels = 0;
  std::uint64_t copies = 0;
  std::uint64_t memsets = 0;
  std::uint64_t dropped_records = 0;
  std::int64_t threads_max = 0;
  std::vector<window_stats> windows;
  std::uint64_t windows_dropped = 0;
  std::vector<kernel_detail> kernel_details;
  bool kernels_truncated = false;
  std::uint64_t outside_kernels = 0;
  std::uint64_t outside_busy_ns = 0;
  std::vector<outside_gap> outside_gaps; ///< the same kernels by the window before them
  witness_stats witness;
  std::vector<std::string> errors; ///< CUPTI calls that failed, at most 32
};

/// What a traced API call that returned success did, for the callback API's own count.
enum class api_work : std::uint8_t { kernel_launch, transfer };

/// Thread-safe: CUPTI's callbacks, its buffer thread and the runtime's markers all call in.
class recorder {
 public:
  /// Opens a window whose API calls have correlation ids from first_correlation on; an open
  /// window is closed first, at the same instant.
  void begin(std::string_view label, std::int64_t group, std::int64_t index, std::int64_t harness_stream,
             std::uint32_t first_correlation, std::uint64_t now_ns);
  /// Closes the open window; last_correlation is the last id that belongs to it. threads < 0: unknown.
  void end(std::uint32_t last_correlation, std::uint64_t now_ns, std::int64_t threads);

  void launch(bool graph); ///< one launch API call, counted in the open window
  /// A kernel launch (not a graph) or a copy or memset call that returned success, counted in the
  /// window its correlation id falls in (none: outside every window, not counted).
  void api_returned(std::uint32_t correlation, api_work work);
  void capture_begun();
  void context_created();
  void stream_created(std::uint32_t stream);
  void module_loaded();
  void graph_created();
  void graph_instantiated();
  void kernel(const kernel_record& k);
  void copy(const transfer_record& r);
  void memset(const transfer_record& r);
  void dropped(std::uint64_t records);
  void threads(std::int64_t count);
  void error(std::string what);
  /// One self-check at a marker (where: "begin" or "end"): the names of callbacks found disabled.
  void witness_check(const std::vector<std::string>& disabled, std::string_view where);
  void forged_marker();
  void refused_claim();

  evidence snapshot() const;
  /// Whether anything changed since the last mark_written().
  bool dirty() const;
  void mark_written();

 private:
  window_stats* window_of(std::uint32_t correlation); ///< m_mutex held; nullptr: outside every window
  /// A copy or a memset, counted in `count` of its window (and `total` of the evidence).
  void transfer(const transfer_record& r, std::uint64_t window_stats::*count, std::uint64_t& total);
  /// A kernel outside every window, counted by the window before its correlation id. m_mutex held.
  void count_outside(std::uint32_t correlation, std::uint64_t duration_ns);
  void close_open(std::uint32_t last_correlation, std::uint64_t now_ns, std::int64_t threads);

  mutable std::mutex m_mutex;
  evidence m_evidence;
  std::int64_t m_open = -1; ///< index of the open window
  bool m_dirty = false;
};

/// Whether a kernel is the runtime's own in window w: the first kernel named arbiter_hold or
/// arbiter_empty (src/runtime/stream_hold.cpp) on the harness stream. A second one of the same name
/// is the candidate's: a kernel named so cannot hide more than the one the runtime launched.
bool is_harness_kernel(const window_stats& w, const char* name, std::uint32_t stream);

/// abi::__cxa_demangle's reading of a mangled name (the name itself when it is not one), cut to
/// max_bytes with "..." at the end.
std::string demangle(const char* name, std::size_t max_bytes = k_max_name);

} // namespace arbiter::probe
