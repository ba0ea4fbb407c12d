// Window bookkeeping and attribution. Correlation ids grow with every API call in the process, so
// a window is a range of them: [first_correlation, last_correlation]. A record belongs to the
// window whose range holds its id, whichever thread made the call.
#include "recorder.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace arbiter::probe {

namespace {

constexpr std::size_t k_max_errors = 32;

void add_stream(std::vector<std::uint32_t>& streams, std::uint32_t stream) {
  if (std::find(streams.begin(), streams.end(), stream) == streams.end()) streams.push_back(stream);
}

void count_after_end(window_stats& w, std::uint64_t end_ns, std::uint64_t& count) {
  if (end_ns <= w.end_ns) return;
  ++count;
  w.after_end_max_ns = std::max(w.after_end_max_ns, end_ns - w.end_ns);
}

/// One piece of the window's device work, a kernel or (transfer) a copy or memset: its time, its
/// stream, and whether it outlived the window.
void add_work(window_stats& w, std::uint32_t stream, std::uint64_t start_ns, std::uint64_t end_ns, bool transfer) {
  w.busy_ns += end_ns > start_ns ? end_ns - start_ns : 0;
  w.first_start_ns = w.first_start_ns == 0 ? start_ns : std::min(w.first_start_ns, start_ns);
  w.last_end_ns = std::max(w.last_end_ns, end_ns);
  add_stream(w.streams, stream);
  if (w.harness_stream >= 0 && static_cast<std::int64_t>(stream) != w.harness_stream)
    ++(transfer ? w.off_stream_transfers : w.off_stream_kernels);
  if (w.open()) (transfer ? w.pending_transfer_ends : w.pending_ends).push_back(end_ns);
  else count_after_end(w, end_ns, transfer ? w.after_end_transfers : w.after_end_kernels);
}

} // namespace

bool is_harness_kernel(const window_stats& w, const char* name, std::uint32_t stream) {
  if (name == nullptr || w.harness_kernels > 0) return false;
  if (w.harness_stream >= 0 && static_cast<std::int64_t>(stream) != w.harness_stream) return false;
  return std::strcmp(name, "arbiter_hold") == 0 || std::strcmp(name, "arbiter_empty") == 0;
}

void recorder::begin(std::string_view label, std::int64_t group, std::int64_t index, std::int64_t harness_stream,
                     std::uint32_t first_correlation, std::uint64_t now_ns) {
  const std::lock_guard lock(m_mutex);
  m_dirty = true;
  if (m_open >= 0) close_open(first_correlation > 0 ? first_correlation - 1 : 0, now_ns, -1);
  if (m_evidence.windows.size() >= k_max_windows) {
    ++m_evidence.windows_dropped;
    return;
  }
  window_stats w;
  w.label = std::string(label.substr(0, k_max_label));
  w.group = group;
  w.index = index;
  w.begin_ns = now_ns;
  w.first_correlation = first_correlation;
  w.harness_stream = harness_stream;
  m_evidence.windows.push_back(std::move(w));
  m_open = static_cast<std::int64_t>(m_evidence.windows.size()) - 1;
}

void recorder::end(std::uint32_t last_correlation, std::uint64_t now_ns, std::int64_t threads) {
  const std::lock_guard lock(m_mutex);
  m_dirty = true;
  if (threads > m_evidence.threads_max) m_evidence.threads_max = threads;
  if (m_open >= 0) close_open(last_correlation, now_ns, threads);
}

void recorder::close_open(std::uint32_t last_correlation, std::uint64_t now_ns, std::int64_t threads) {
  auto& w = m_evidence.windows[static_cast<std::size_t>(m_open)];
  m_open = -1;
  // An id below the window's first means no API call happened inside it: an empty range.
  w.last_correlation = last_correlation < w.first_correlation ? w.first_correlation - 1 : last_correlation;
  w.end_ns = now_ns;
  w.threads = threads;
  for (const auto end_ns : w.pending_ends) count_after_end(w, end_ns, w.after_end_kernels);
  for (const auto end_ns : w.pending_transfer_ends) count_after_end(w, end_ns, w.after_end_transfers);
  w.pending_ends = {};
  w.pending_transfer_ends = {};
}

window_stats* recorder::window_of(std::uint32_t correlation) {
  auto& windows = m_evidence.windows;
  // Windows are opened in order, so their first ids never decrease: the candidate is the last
  // window that starts at or before the id.
  auto it = std::upper_bound(windows.begin(), windows.end(), correlation,
                             [](std::uint32_t id, const window_stats& w) { return id < w.first_correlation; });
  if (it == windows.begin()) return nullptr;
  --it;
  return correlation <= it->last_correlation ? &*it : nullptr;
}

void recorder::launch(bool graph) {
  const std::lock_guard lock(m_mutex);
  m_dirty = true;
  if (graph) ++m_evidence.graphs_launched;
  if (m_open < 0) return;
  auto& w = m_evidence.windows[static_cast<std::size_t>(m_open)];
  ++w.launches;
  if (graph) ++w.graph_launches;
}

void recorder::kernel(const kernel_record& k) {
  const std::lock_guard lock(m_mutex);
  m_dirty = true;
  ++m_evidence.kernels;
  const kernel_run& run = k.run;
  const std::uint64_t duration = run.end_ns > run.start_ns ? run.end_ns - run.start_ns : 0;
  window_stats* w = window_of(k.correlation);
  if (w != nullptr && is_harness_kernel(*w, k.name, run.stream)) {
    ++w->harness_kernels;
    ++m_evidence.harness_kernels;
  } else if (w == nullptr) {
    count_outside(k.correlation, duration);
  } else {
    ++w->kernels;
    add_work(*w, run.stream, run.start_ns, run.end_ns, false);
  }
  if (m_evidence.kernel_details.size() >= k_max_kernel_details) {
    m_evidence.kernels_truncated = true;
    return;
  }
  const std::int64_t window = w == nullptr ? -1 : w - m_evidence.windows.data();
  m_evidence.kernel_details.push_back({demangle(k.name), run, window});
}

void recorder::count_outside(std::uint32_t correlation, std::uint64_t duration_ns) {
  ++m_evidence.outside_kernels;
  m_evidence.outside_busy_ns += duration_ns;
  const auto& windows = m_evidence.windows;
  const auto after = std::upper_bound(windows.begin(), windows.end(), correlation,
                                      [](std::uint32_t id, const window_stats& w) { return id < w.first_correlation; });
  const window_stats* before = after == windows.begin() ? nullptr : &*std::prev(after);
  const std::string label = before == nullptr ? std::string() : before->label;
  const std::int64_t group = before == nullptr ? -1 : before->group;
  auto& gaps = m_evidence.outside_gaps;
  auto gap = std::find_if(gaps.begin(), gaps.end(), [&](const outside_gap& g) { return g.group == group && g.label == label; });
  if (gap == gaps.end()) {
    if (gaps.size() >= k_max_outside_gaps) return;
    gap = gaps.insert(gaps.end(), outside_gap{label, group, 0, 0});
  }
  ++gap->kernels;
  gap->busy_ns += duration_ns;
}

void recorder::api_returned(std::uint32_t correlation, api_work work) {
  const std::lock_guard lock(m_mutex);
  m_dirty = true;
  if (auto* w = window_of(correlation)) ++(work == api_work::kernel_launch ? w->api_kernel_launches : w->api_transfers);
}

void recorder::copy(const transfer_record& r) { transfer(r, &window_stats::copies, m_evidence.copies); }

void recorder::memset(const transfer_record& r) { transfer(r, &window_stats::memsets, m_evidence.memsets); }

void recorder::transfer(const transfer_record& r, std::uint64_t window_stats::*count, std::uint64_t& total) {
  const std::lock_guard lock(m_mutex);
  m_dirty = true;
  ++total;
  // Outside the windows only kernels are summed: the runtime's own L2 flush is a memset there.
  if (auto* w = window_of(r.correlation)) {
    ++(w->*count);
    add_work(*w, r.stream, r.start_ns, r.end_ns, true);
  }
}

void recorder::capture_begun() {
  const std::lock_guard lock(m_mutex);
  ++m_evidence.captures;
  if (m_open >= 0) ++m_evidence.windows[static_cast<std::size_t>(m_open)].captures;
}

void recorder::context_created() {
  const std::lock_guard lock(m_mutex);
  ++m_evidence.contexts;
}

void recorder::stream_created(std::uint32_t stream) {
  const std::lock_guard lock(m_mutex);
  m_evidence.streams_created.push_back(stream);
}

void recorder::module_loaded() {
  const std::lock_guard lock(m_mutex);
  ++m_evidence.modules_loaded;
}

void recorder::graph_created() {
  const std::lock_guard lock(m_mutex);
  ++m_evidence.graphs_created;
}

void recorder::graph_instantiated() {
  const std::lock_guard lock(m_mutex);
  ++m_evidence.graphs_instantiated;
}

void recorder::dropped(std::uint64_t records) {
  const std::lock_guard lock(m_mutex);
  m_evidence.dropped_records += records;
}

void recorder::threads(std::int64_t count) {
  const std::lock_guard lock(m_mutex);
  m_evidence.threads_max = std::max(m_evidence.threads_max, count);
}

void recorder::error(std::string what) {
  const std::lock_guard lock(m_mutex);
  m_dirty = true;
  if (m_evidence.errors.size() < k_max_errors) m_evidence.errors.push_back(std::move(what));
}

void recorder::witness_check(const std::vector<std::string>& disabled, std::string_view where) {
  const std::lock_guard lock(m_mutex);
  auto& w = m_evidence.witness;
  ++w.checks;
  if (disabled.empty()) return;
  m_dirty = true;
  w.callbacks_disabled += disabled.size();
  for (const auto& name : disabled)
    if (w.notes.size() < k_max_witness_notes)
      w.notes.push_back(name + " at " + std::string(where) + " (check " + std::to_string(w.checks) + ")");
}

void recorder::forged_marker() {
  const std::lock_guard lock(m_mutex);
  m_dirty = true;
  ++m_evidence.witness.forged_markers;
}

void recorder::refused_claim() {
  const std::lock_guard lock(m_mutex);
  m_dirty = true;
  ++m_evidence.witness.refused_claims;
}

evidence recorder::snapshot() const {
  const std::lock_guard lock(m_mutex);
  return m_evidence;
}

bool recorder::dirty() const {
  const std::lock_guard lock(m_mutex);
  return m_dirty;
}

void recorder::mark_written() {
  const std::lock_guard lock(m_mutex);
  m_dirty = false;
}

} // namespace arbiter::probe
