#include "detail/outside_clock.hpp"

#include "detail/outside_outputs.hpp"

#include "arbiter/common/error.hpp"
#include "arbiter/common/event_names.hpp"
#include "arbiter/common/json_field.hpp"
#include "arbiter/common/log.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <thread>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

namespace {

using clock_type = std::chrono::steady_clock;

/// A descriptor closed with its owner.
struct owned_fd {
  int fd = -1;
  explicit owned_fd(int value = -1) : fd(value) {}
  owned_fd(const owned_fd&) = delete;
  owned_fd& operator=(const owned_fd&) = delete;
  ~owned_fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// Copies, never links: a link would share one file between the reference's folder and every
/// evaluation of the problem, and a candidate opening its copy for writing would change the sets
/// the next candidates are handed.
void copy_sets(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  std::error_code ec;
  for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path target = to / it->path().filename();
    if (fs::exists(target)) continue; // a process's later batches of the shape reuse its copies
    fs::copy_file(it->path(), target);
  }
  if (ec) ARB_THROW(io_error, "outside clock: cannot read the batch sets in " + from.string() + ": " + ec.message());
}

/// What the threads did between two readings: their run time together, and those that ran at least
/// k_busy_thread_ms, busiest first, as "name (tid N): X ms"; a thread born between them counts all
/// its run time.
struct threads_ran {
  double total_ms = 0.0;
  std::vector<std::string> busy;
};

threads_ran between(const std::vector<sandbox::thread_sample>& before, const std::vector<sandbox::thread_sample>& after) {
  std::map<int, std::uint64_t> was;
  for (const auto& t : before) was[t.tid] = t.run_ns;
  threads_ran out;
  std::vector<std::pair<double, std::string>> ran;
  for (const auto& t : after) {
    const std::uint64_t start = was.count(t.tid) ? was[t.tid] : 0;
    const double ms = t.run_ns > start ? static_cast<double>(t.run_ns - start) / 1e6 : 0.0;
    out.total_ms += ms;
    if (ms >= k_busy_thread_ms) ran.emplace_back(ms, fmt::format("{} (tid {}): {:.3g} ms", t.name, t.tid, ms));
  }
  std::sort(ran.begin(), ran.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [ms, what] : ran) out.busy.push_back(std::move(what));
  return out;
}

} // namespace

struct outside_clock::state {
  outside_paths paths;
  owned_fd fifo, notify, stop_event;
  std::thread follower;
  std::string pending; ///< channel bytes after the last complete line
  std::uint64_t offset = 0;
  outside_record record;
  std::optional<std::size_t> open_batch; ///< index into record.batches
  clock_type::time_point go_at;
  sandbox::process_access access;
  std::optional<double> cpu_at_go;
  std::map<std::pair<std::size_t, std::string>, bool> seen;

  void follow();
  void read_channel();
  void on_line(std::string_view line);
  void on_ready(std::size_t shape_idx, const std::string& label);
  void on_done(const nlohmann::json& event, std::size_t shape_idx, const std::string& label);
  void keep(const nlohmann::json& event, std::size_t shape_idx, const std::string& label);
  void release(const std::string& where);
  void watch_quiet(outside_batch& batch);
};

void outside_clock::state::follow() {
  while (true) {
    std::array<pollfd, 2> fds{{{stop_event.fd, POLLIN, 0}, {notify.fd, POLLIN, 0}}};
    // inotify where it is granted; else a short tick (the wake-up is part of every batch's wall,
    // the reference's overhead batches included).
    const int ready = ::poll(fds.data(), notify.fd >= 0 ? 2 : 1, notify.fd >= 0 ? -1 : 1);
    if (ready < 0 && errno != EINTR) return;
    if (notify.fd >= 0 && (fds[1].revents & POLLIN)) {
      std::array<char, 4096> events;
      while (::read(notify.fd, events.data(), events.size()) > 0) {}
    }
    read_channel();
    if (fds[0].revents & POLLIN) return;
  }
}

void outside_clock::state::read_channel() {
  owned_fd in(::open(paths.channel.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) return;
  std::array<char, 1 << 16> buffer;
  for (ssize_t got; (got = ::pread(in.fd, buffer.data(), buffer.size(), static_cast<off_t>(offset))) > 0;) {
    offset += static_cast<std::uint64_t>(got);
    pending.append(buffer.data(), static_cast<std::size_t>(got));
    std::size_t start = 0;
    for (std::size_t newline; (newline = pending.find('\n', start)) != std::string::npos; start = newline + 1)
      on_line(std::string_view(pending).substr(start, newline - start));
    pending.erase(0, start);
  }
}

// Frames are `<seq> <length> <json>`; the strict reading is the judge's, this one only looks for
// the two batch events.
void outside_clock::state::on_line(std::string_view line) {
  if (line.find("\"outside_") == std::string_view::npos) return;
  const std::size_t first = line.find(' ');
  const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos) return;
  const auto event = nlohmann::json::parse(line.substr(second + 1), nullptr, false);
  if (!event.is_object() || !event.contains("shape_idx") || !event["shape_idx"].is_number_unsigned()) return;
  const auto shape_idx = event["shape_idx"].get<std::size_t>();
  const std::string label = string_or(event, "label"); // the candidate's bytes: by type, never thrown from this thread
  const std::string name = string_or(event, "event");
  if (name == event_name::outside_ready) on_ready(shape_idx, label);
  if (name != event_name::outside_done) return;
  on_done(event, shape_idx, label);
  release("shape " + std::to_string(shape_idx) + " " + label); // whatever the answer was: the runner waits for it
}

void outside_clock::state::on_ready(std::size_t shape_idx, const std::string& label) {
  const std::string where = "shape " + std::to_string(shape_idx) + " " + label;
  if (open_batch) return record.faults.push_back("batch " + where + " announced while another was open");
  if (seen[{shape_idx, label}]) return record.faults.push_back("batch " + where + " announced twice");
  seen[{shape_idx, label}] = true;
  const fs::path sets = paths.sets_dir / std::to_string(shape_idx);
  outside_batch batch{shape_idx, label, 0, 0.0, false, std::nullopt, std::nullopt};
  try {
    copy_sets(sets, paths.dir / "in" / std::to_string(shape_idx));
    for (const auto& entry : fs::directory_iterator(sets)) batch.calls += entry.is_regular_file() ? 1 : 0;
  } catch (const std::exception& e) {
    return record.faults.push_back("batch " + where + ": " + e.what());
  }
  open_batch = record.batches.size();
  record.batches.push_back(batch);
  cpu_at_go = access.cpu_ms ? access.cpu_ms() : std::nullopt; // the process waits on the pipe: nothing of it runs now
  go_at = clock_type::now();
  const char go = 1;
  if (::write(fifo.fd, &go, 1) != 1) record.faults.push_back("batch " + where + ": the go could not be written");
}

// Every process of the evaluation is held still before the clocks are read, and stays held while
// its outputs are read out of its memory: what it does after its answer neither escapes the clocks
// nor reaches the outputs.
void outside_clock::state::on_done(const nlohmann::json& event, std::size_t shape_idx, const std::string& label) {
  const std::string where = "batch shape " + std::to_string(shape_idx) + " " + label;
  // The reference's outputs are not kept: it is trusted, and left to run.
  const bool holds = access.hold && !paths.kept_dir.empty();
  bool held = holds && access.hold(true);
  if (holds && !held) record.faults.push_back(where + ": the process could not be held still");
  const auto now = clock_type::now();
  const auto cpu_now = access.cpu_ms ? access.cpu_ms() : std::nullopt;
  if (!open_batch || record.batches[*open_batch].shape_idx != shape_idx || record.batches[*open_batch].label != label) {
    record.faults.push_back(where + " done but not open");
  } else {
    auto& batch = record.batches[*open_batch];
    batch.wall_ms = std::chrono::duration<double, std::milli>(now - go_at).count();
    if (cpu_now && cpu_at_go) batch.cpu_ms = *cpu_now - *cpu_at_go;
    batch.finished = true;
    const std::size_t batch_idx = *open_batch;
    open_batch.reset();
    if (!paths.kept_dir.empty()) keep(event, shape_idx, label);
    if (held && !access.hold(false)) record.faults.push_back(where + ": the process could not be let go");
    held = false;
    if (holds) watch_quiet(record.batches[batch_idx]);
  }
  if (held && !access.hold(false)) record.faults.push_back(where + ": the process could not be let go");
}

// The runner waits for its release on the pipe: an honest process uses no CPU now. Its threads are
// read on both sides of the window, so that the one still working is named.
void outside_clock::state::watch_quiet(outside_batch& batch) {
  const auto threads_before = access.threads ? access.threads() : std::vector<sandbox::thread_sample>{};
  const auto before = access.cpu_ms ? access.cpu_ms() : std::nullopt;
  std::this_thread::sleep_for(std::chrono::milliseconds(k_quiet_ms));
  const auto after = access.cpu_ms ? access.cpu_ms() : std::nullopt;
  if (before && after) batch.busy_ms = *after - *before;
  if (!access.threads) return;
  auto ran = between(threads_before, access.threads());
  batch.threads = static_cast<int>(threads_before.size());
  batch.threads_busy_ms = ran.total_ms;
  batch.busy_threads = std::move(ran.busy);
}

void outside_clock::state::keep(const nlohmann::json& event, std::size_t shape_idx, const std::string& label) {
  const std::string where = "batch shape " + std::to_string(shape_idx) + " " + label;
  const declared_outputs declared = parse_declared(event);
  if (!declared.problem.empty()) return record.faults.push_back(where + ": " + declared.problem);
  const auto host_pid = access.host_pid ? access.host_pid(declared.pid) : std::nullopt;
  if (!host_pid)
    return record.faults.push_back(where + ": its outputs are declared in process " + std::to_string(declared.pid) +
                                   ", which is not one of the evaluation's");
  const std::string error = keep_declared(declared, *host_pid, paths.kept_dir / std::to_string(shape_idx) / label);
  if (!error.empty()) record.faults.push_back(where + ": its outputs could not be read: " + error);
}

void outside_clock::state::release(const std::string& where) {
  const char go = 1;
  if (::write(fifo.fd, &go, 1) != 1) record.faults.push_back("batch " + where + ": the release could not be written");
}

outside_clock::outside_clock(outside_paths paths, sandbox::process_access access) : m_state(std::make_unique<state>()) {
  auto& s = *m_state;
  s.paths = std::move(paths);
  s.access = std::move(access);
  fs::create_directories(s.paths.dir / "in");
  fs::remove(s.paths.fifo);
  if (::mkfifo(s.paths.fifo.c_str(), 0644) != 0)
    ARB_THROW(io_error, "outside clock: mkfifo " + s.paths.fifo.string() + ": " + std::strerror(errno));
  // Read-write: opening never waits for the runner, and a write never fails for want of a reader.
  s.fifo.fd = ::open(s.paths.fifo.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK);
  if (s.fifo.fd < 0) ARB_THROW(io_error, "outside clock: open " + s.paths.fifo.string() + ": " + std::strerror(errno));
  s.stop_event.fd = ::eventfd(0, EFD_CLOEXEC);
  s.notify.fd = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  // The folder, not the file: the channel file may not exist yet, or be made anew by the supervisor.
  if (s.notify.fd >= 0 && ::inotify_add_watch(s.notify.fd, s.paths.channel.parent_path().c_str(), IN_MODIFY) < 0) {
    ::close(s.notify.fd);
    s.notify.fd = -1;
  }
  s.follower = std::thread([&s] { s.follow(); });
}

outside_clock::~outside_clock() {
  if (m_state && m_state->follower.joinable()) stop();
}

outside_record outside_clock::stop() {
  auto& s = *m_state;
  if (s.follower.joinable()) {
    const std::uint64_t one = 1;
    if (::write(s.stop_event.fd, &one, sizeof one) != sizeof one) ARB_WARN("outside", "cannot stop the clock's thread");
    s.follower.join();
  }
  s.read_channel();
  write_outside(s.paths.channel.parent_path() / "outside.json", s.record);
  return s.record;
}

outside_paths reference_outside(const fs::path& ref_dir) {
  return {ref_dir / "events.jsonl", ref_dir / "outside.fifo", ref_dir / "outside", ref_dir / "outside-sets", {}};
}

outside_paths candidate_outside(const fs::path& ref_dir, const fs::path& eval_dir) {
  return {eval_dir / "events.jsonl", eval_dir / "outside.fifo", eval_dir / "outside", ref_dir / "outside-sets",
          eval_dir / "outside-kept"};
}

nlohmann::json outside_job(const outside_paths& paths) {
  nlohmann::json job{{"fifo", paths.fifo.string()}, {"dir", paths.dir.string()}};
  if (!paths.sets_dir.empty()) job["sets_dir"] = paths.sets_dir.string();
  return job;
}

} // namespace arbiter::pipeline::detail
