#include "detail/sandbox_view.hpp"

#include "arbiter/common/error.hpp"
#include "arbiter/common/log.hpp"

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

namespace {

/// nogroup by name, else the conventional 65534.
gid_t sandbox_group() {
  group entry{};
  group* found = nullptr;
  char buffer[4096];
  if (::getgrnam_r("nogroup", &entry, buffer, sizeof buffer, &found) == 0 && found != nullptr) return found->gr_gid;
  return 65534;
}

} // namespace

uid_t sandbox_uid_for(const fs::path& model_cache) {
  // FNV-1a of the model's cache folder: the same model always gets the same uid (its cache stays
  // its own across the build and the timed run), two models almost never share one.
  std::uint64_t hash = 1469598103934665603ull;
  for (const unsigned char c : model_cache.string()) hash = (hash ^ c) * 1099511628211ull;
  return static_cast<uid_t>(k_sandbox_uid_base + hash % k_sandbox_uid_span);
}

namespace {

// Inside a user namespace that maps only arbiter's own uid (an agent's bash tool runs `check`
// so), the sandbox user does not exist: chown and setuid to it fail with EINVAL.
bool uid_mapped(uid_t uid) {
  std::ifstream map("/proc/self/uid_map");
  unsigned long inner = 0, outer = 0, count = 0;
  while (map >> inner >> outer >> count)
    if (uid >= inner && uid - inner < count) return true;
  return !map.eof() || inner + outer + count == 0; // unreadable map: assume the initial namespace
}

bool holds(const fs::path& folder, const fs::path& path) {
  std::error_code ec;
  const fs::path inner = fs::weakly_canonical(path, ec);
  if (ec) return false;
  auto const [folder_end, path_end] = std::mismatch(folder.begin(), folder.end(), inner.begin(), inner.end());
  return folder_end == folder.end();
}

// The database's folder holds what a campaign was given (often the solutions too) but may be a
// folder the system needs: hidden only below the top level and when the interpreter is not in it.
void hide_database(const job_context& ctx, std::vector<std::string>& hidden) {
  if (ctx.options.db.empty()) return;
  const fs::path db = fs::absolute(ctx.options.db);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) hidden.push_back(db.string() + suffix);
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(db.parent_path(), ec);
  if (ec || std::distance(folder.begin(), folder.end()) < 3) return; // "/", "/tmp", "/work"
  if (ctx.options.python.find('/') == std::string::npos || holds(folder, ctx.options.python)) return;
  hidden.push_back(folder.string());
}

std::string as_string(const fs::path& path) { return path.empty() ? std::string() : fs::absolute(path).string(); }

/// $ARBITER_MAX_WORK_BYTES, else k_max_work_bytes.
std::uint64_t max_work_bytes() {
  if (const char* given = std::getenv("ARBITER_MAX_WORK_BYTES"); given != nullptr && *given != '\0') {
    char* end = nullptr;
    unsigned long long const value = std::strtoull(given, &end, 10);
    if (end != nullptr && *end == '\0') return value;
    ARB_WARN("sandbox", "ARBITER_MAX_WORK_BYTES={} is not a number of bytes; using {}", given, k_max_work_bytes);
  }
  return k_max_work_bytes;
}

// A file that vanished meanwhile (a build of the same model running beside) needs no owner.
void change_owner(const fs::path& path, const sandbox::isolation& isolation) {
  if (::lchown(path.c_str(), isolation.uid, isolation.gid) != 0 && errno != ENOENT)
    ARB_THROW(io_error, "sandbox: chown " + path.string() + ": " + std::strerror(errno));
}

void own_tree(const fs::path& root, const sandbox::isolation& isolation) {
  fs::create_directories(root);
  change_owner(root, isolation);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    change_owner(it->path(), isolation);
}

// The folders of a tree to the sandbox user, its files left as they are: the runner may empty the
// folders, but a file hard-linked from the reference stays read-only to the candidate.
void own_folders(const fs::path& root, const sandbox::isolation& isolation) {
  if (!fs::exists(root)) return;
  change_owner(root, isolation);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory()) change_owner(it->path(), isolation);
}

void readable_tree(const fs::path& root) {
  constexpr auto read_all = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
  constexpr auto enter_all = fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  fs::permissions(root, read_all | enter_all, fs::perm_options::add);
  for (const auto& entry : fs::recursive_directory_iterator(root))
    fs::permissions(entry.path(), entry.is_directory() ? read_all | enter_all : read_all,
                    fs::perm_options::add | fs::perm_options::nofollow);
}

} // namespace

sandbox::isolation candidate_isolation(const job_context& ctx, const candidate_paths& paths) {
  sandbox::isolation isolation;
  isolation.enabled = ctx.options.sandbox;
  if (!isolation.enabled) return isolation;
  isolation.uid = sandbox_uid_for(paths.cache_dir);
  isolation.gid = sandbox_group();
  if (!uid_mapped(isolation.uid)) {
    // Namespaces and the hidden file view still apply; only the change of user cannot.
    ARB_WARN("sandbox", "uid {} is not mapped in this user namespace; the candidate keeps uid {}", isolation.uid, ::geteuid());
    isolation.uid = ::geteuid();
    isolation.gid = ::getegid();
  }
  isolation.hidden_paths = {as_string(paths.data_dir), as_string(paths.cache_dir.parent_path()), as_string(ctx.options.suite_dir),
                            as_string(ctx.options.solutions_dir)};
  hide_database(ctx, isolation.hidden_paths);
  std::erase(isolation.hidden_paths, std::string());
  isolation.scratch_paths = {"/tmp", "/var/tmp", "/dev/shm", "/run/lock"};
  isolation.scratch_max_bytes = k_scratch_max_bytes;
  isolation.writable_paths = {as_string(paths.own_dir), as_string(paths.cache_dir)};
  isolation.size_capped_paths = {as_string(paths.own_dir / "work")};
  isolation.max_work_bytes = max_work_bytes();
  isolation.pids_max = k_sandbox_pids_max;
  // One intra-op thread is granted on the CPU (cpu_environment): a quota of one core, so that more
  // threads gain nothing, where the host delegates the cpu controller.
  if (ctx.device == "cpu") isolation.cpu_max_cores = 1;
  isolation.exposed_paths = {as_string(ctx.paths.python_dir), as_string(ctx.paths.runtime_lib)};
  if (!paths.exchange.empty()) isolation.exposed_paths.push_back(as_string(paths.exchange));
  // An interpreter in a virtual environment under a hidden folder: its whole environment.
  if (ctx.options.python.find('/') != std::string::npos)
    isolation.exposed_paths.push_back(as_string(fs::path(ctx.options.python).parent_path().parent_path()));
  return isolation;
}

void prepare_candidate_files(const sandbox::isolation& isolation, const candidate_paths& paths, bool candidate) {
  if (!isolation.enabled || ::geteuid() != 0) return;
  try {
    readable_tree(paths.own_dir);
    own_tree(paths.own_dir / "work", isolation);
    own_tree(paths.cache_dir, isolation);
    for (const char* folder : {"outputs", "timing", "outside/out"}) // outside/ itself stays the orchestrator's
      if (candidate) own_tree(paths.own_dir / folder, isolation);
    if (!candidate) { // a candidate's events come over the channel into the orchestrator's own file (use_channel)
      const fs::path events = paths.own_dir / "events.jsonl";
      if (!std::ofstream(events, std::ios::app)) ARB_THROW(io_error, "sandbox: cannot create " + events.string());
      change_owner(events, isolation);
    }
  } catch (const fs::filesystem_error& e) {
    ARB_THROW(io_error, std::string("sandbox: preparing ") + paths.own_dir.string() + ": " + e.what());
  }
}

void receive_reference_files(const sandbox::isolation& isolation, const fs::path& own_dir, const fs::path& exchange) {
  if (!isolation.enabled || ::geteuid() != 0) return;
  try {
    own_folders(own_dir / "sealed", isolation);
    readable_tree(exchange);
  } catch (const fs::filesystem_error& e) {
    ARB_THROW(io_error, std::string("sandbox: handing over ") + exchange.string() + ": " + e.what());
  }
}

nlohmann::json sandbox_details(const sandbox::isolation& isolation, const sandbox::process_result& process) {
  nlohmann::json details{{"requested", isolation.enabled}, {"applied", process.isolation_applied}};
  if (isolation.enabled) details["uid"] = isolation.uid;
  if (!isolation.enabled) details["note"] = "disabled by --no-sandbox (ARBITER_NO_SANDBOX)";
  else if (!process.isolation_applied && !process.isolation_note.empty()) details["note"] = process.isolation_note;
  if (!process.isolation_engine.empty()) {
    details["engine"] = process.isolation_engine;
    details["layers"] = process.isolation_layers;
  }
  if (!process.isolation_missing.empty()) details["missing"] = process.isolation_missing;
  if (!process.limit_exceeded.empty()) details["limit_exceeded"] = process.limit_exceeded;
  return details;
}

} // namespace arbiter::pipeline::detail
