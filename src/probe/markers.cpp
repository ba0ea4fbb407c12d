// The marker API the runtime calls around each call (arbiter_probe.h) and the evidence file.
// A window's bounds in correlation ids come from a marker call to the driver (cuDriverGetVersion,
// traced): every API call that enters after it has a larger id, every one before a smaller one.
// Markers carry the run's token, drawn here at initialisation and handed once to the first caller
// of arbiter_probe_claim (the runtime, as the runner loads it, before any candidate code): a marker
// with another token is ignored and counted (forged_markers), and so is every later claim.
#include "arbiter/probe/arbiter_probe.h"
#include "cupti_glue.hpp"
#include "evidence_json.hpp"
#include "arbiter/probe/signature.hpp"

#include <dirent.h>
#include <sys/random.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace arbiter::probe {

namespace {

std::string& exit_path() {
  static auto* path = new std::string();
  return *path;
}

/// The evidence key taken at initialisation ("" when none was handed over: evidence goes unsigned).
std::string& evidence_key() {
  static auto* key = new std::string();
  return *key;
}

/// The run's marker token: random, never 0 (0 is what a caller without one passes).
std::uint64_t draw_token() {
  std::uint64_t token = 0;
  while (token == 0)
    if (::getrandom(&token, sizeof token, 0) != static_cast<ssize_t>(sizeof token)) token = 0;
  return token;
}

std::uint64_t g_token = 0;
std::atomic<bool> g_claimed{false};

/// Whether a marker carries the run's token; one that does not is counted and ignored.
bool genuine(std::uint64_t token) {
  if (g_token != 0 && token == g_token) return true;
  the_recorder().forged_marker();
  return false;
}

std::uint64_t now_ns() {
  std::uint64_t ts = 0;
  return cuptiGetTimestamp(&ts) == CUPTI_SUCCESS ? ts : 0;
}

/// The correlation id of a fresh marker call: everything traced before it is ≤ the result.
std::uint32_t correlation_now() {
  if (const auto version = driver().driver_get_version) {
    int ignored = 0;
    version(&ignored);
  }
  return g_max_correlation.load(std::memory_order_relaxed);
}

std::int64_t count_threads() {
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return -1;
  std::int64_t count = 0;
  while (const dirent* entry = ::readdir(tasks))
    if (entry->d_name[0] != '.') ++count;
  ::closedir(tasks);
  return count;
}

/// The CUPTI id of the harness's stream in the calling thread's context; -1 when unknown.
std::int64_t harness_stream_id(std::uint64_t stream) {
  static std::mutex mutex;
  static std::map<std::pair<CUcontext, std::uint64_t>, std::int64_t> known;
  CUcontext context = nullptr;
  if (driver().ctx_get_current == nullptr || driver().ctx_get_current(&context) != CUDA_SUCCESS || context == nullptr) return -1;
  const std::lock_guard lock(mutex);
  const auto key = std::make_pair(context, stream);
  if (const auto it = known.find(key); it != known.end()) return it->second;
  // 0 and CU_STREAM_LEGACY name the legacy default stream, CU_STREAM_PER_THREAD the thread's own.
  const bool per_thread = stream == reinterpret_cast<std::uint64_t>(CU_STREAM_PER_THREAD);
  const bool default_stream = stream == 0 || per_thread || stream == reinterpret_cast<std::uint64_t>(CU_STREAM_LEGACY);
  const CUstream handle = default_stream ? nullptr : reinterpret_cast<CUstream>(stream);
  std::uint32_t id = 0;
  const std::int64_t result = ARB_CUPTI_CALL(cuptiGetStreamIdEx(context, handle, per_thread ? 1 : 0, &id)) ? id : -1;
  known.emplace(key, result);
  return result;
}

int write_evidence(const char* path) {
  if (path == nullptr || *path == '\0') return -1;
  flush_activity();
  auto& rec = the_recorder();
  rec.threads(count_threads());
  const std::string text = evidence_json(rec.snapshot());
  if (!write_atomically(path, text)) return -1;
  if (!evidence_key().empty() && !write_atomically(mac_path(path), evidence_mac(evidence_key(), text))) return -1;
  rec.mark_written();
  return 0;
}

void write_at_exit() {
  if (!exit_path().empty() && the_recorder().dirty()) write_evidence(exit_path().c_str());
}

} // namespace

void install_exit_writer() {
  g_token = draw_token();
  // Read once, now: the candidate's code runs later and may change its environment. The key file
  // is deleted as it is read, so that the candidate's code never finds it.
  if (const char* key_file = std::getenv("ARBITER_PROBE_KEY"); key_file != nullptr && *key_file != '\0') {
    if (auto key = take_evidence_key(key_file)) evidence_key() = std::move(*key);
    else std::fprintf(stderr, "arbiter probe: evidence key %s unreadable: evidence goes unsigned\n", key_file);
  }
  if (const char* out = std::getenv("ARBITER_PROBE_OUT"); out != nullptr && *out != '\0') {
    exit_path() = out;
    std::atexit(write_at_exit);
  }
}

} // namespace arbiter::probe

extern "C" int arbiter_probe_claim(uint64_t* token) {
  using namespace arbiter::probe;
  if (token == nullptr || g_token == 0 || g_claimed.exchange(true)) {
    the_recorder().refused_claim();
    return -1;
  }
  *token = g_token;
  return 0;
}

extern "C" int arbiter_probe_begin(uint64_t token, const char* label, int64_t group, int64_t index, uint64_t stream) {
  using namespace arbiter::probe;
  if (!genuine(token)) return -1;
  reassert_witness("begin");
  const std::int64_t harness = harness_stream_id(stream);
  const std::uint32_t first = correlation_now() + 1;
  the_recorder().begin(label == nullptr ? "" : label, group, index, harness, first, now_ns());
  return 0;
}

extern "C" int arbiter_probe_end(uint64_t token) {
  using namespace arbiter::probe;
  if (!genuine(token)) return -1;
  const std::uint64_t now = now_ns();
  const std::uint32_t last = correlation_now();
  the_recorder().end(last, now, count_threads());
  reassert_witness("end");
  return 0;
}

extern "C" int arbiter_probe_write(uint64_t token, const char* path) {
  using namespace arbiter::probe;
  return genuine(token) ? write_evidence(path) : -1;
}
