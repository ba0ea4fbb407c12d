#include "detail/bwrap_plan.hpp"

#include <algorithm>
#include <filesystem>

namespace arbiter::sandbox {

std::vector<std::string> default_system_paths() {
  return {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys"};
}

} // namespace arbiter::sandbox

namespace arbiter::sandbox::detail {
namespace {

namespace fs = std::filesystem;

enum class entry_kind { system_link, read_only, read_write, scratch, hide_folder, hide_file, make_dir };

struct entry {
  fs::path path;
  entry_kind kind;
  fs::path link_target; ///< system_link only
};

bool inside(const fs::path& path, const fs::path& root) {
  auto const [root_end, path_end] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

std::size_t depth(const fs::path& path) { return static_cast<std::size_t>(std::distance(path.begin(), path.end())); }

/// The canonical form of each path that exists, "/" never.
void add_existing(std::vector<entry>& entries, const std::vector<std::string>& paths, entry_kind kind) {
  for (auto const& path : paths) {
    std::error_code ec;
    fs::path const resolved = fs::canonical(path, ec);
    if (ec || resolved == resolved.root_path()) continue;
    bool const seen = std::any_of(entries.begin(), entries.end(), [&](const entry& e) { return e.path == resolved; });
    if (!seen) entries.push_back({resolved, kind, {}});
  }
}

/// System paths keep their own form: a symlink (/bin -> usr/bin) is made again as one.
void add_system(std::vector<entry>& entries, const std::vector<std::string>& paths) {
  for (auto const& path : paths) {
    std::error_code ec;
    fs::path const given = fs::path(path).lexically_normal();
    if (!fs::exists(fs::symlink_status(given, ec)) || given == given.root_path()) continue;
    if (fs::is_symlink(fs::symlink_status(given, ec)))
      entries.push_back({given, entry_kind::system_link, fs::read_symlink(given, ec)});
    else entries.push_back({given, entry_kind::read_only, {}});
  }
}

} // namespace

std::vector<std::string> toolchain_paths(const std::map<std::string, std::string>& env) {
  std::vector<std::string> paths;
  auto const add = [&](const fs::path& path) {
    if (path.is_absolute() && path != path.root_path()) paths.push_back(path.lexically_normal().string());
  };
  auto const add_list = [&](const std::string& name) {
    auto const it = env.find(name);
    if (it == env.end()) return;
    std::size_t begin = 0;
    while (begin <= it->second.size()) {
      std::size_t end = it->second.find(':', begin);
      if (end == std::string::npos) end = it->second.size();
      add(it->second.substr(begin, end - begin));
      begin = end + 1;
    }
  };
  add_list("PATH");
  add_list("LD_LIBRARY_PATH");
  for (const char* name : {"CUDA_HOME", "CUDA_PATH"})
    if (auto const it = env.find(name); it != env.end()) add(it->second);
  for (const char* name : {"CC", "CXX"}) {
    auto const it = env.find(name);
    if (it == env.end()) continue;
    fs::path const folder = fs::path(it->second).parent_path();
    add(folder.filename() == "bin" ? folder.parent_path() : folder);
  }
  return paths;
}

std::vector<std::string> cuda_devices() {
  std::vector<std::string> devices;
  std::error_code ec;
  for (fs::directory_iterator it("/dev", ec), end; !ec && it != end; it.increment(ec)) {
    std::string const name = it->path().filename().string();
    if (name.rfind("nvidia", 0) == 0) devices.push_back(it->path().string());
  }
  std::sort(devices.begin(), devices.end());
  return devices;
}

std::vector<std::string> bwrap_argv(const isolation& wanted, const bwrap_request& request) {
  // No --die-with-parent: it ties the namespace's init to bwrap's outer process, which ends as soon
  // as the program does, so every process left in the namespace would die before the supervisor
  // could see it (process_result::survivors). The outer process dies with arbiter all the same
  // (child_launch sets its parent-death signal), and the init, in the supervised group, with it.
  std::vector<std::string> argv{request.bwrap,   "--unshare-pid", "--unshare-ipc",
                                "--unshare-uts", "--hostname",    "arbiter-sandbox"};
  if (wanted.new_net_ns) argv.push_back("--unshare-net");
  argv.insert(argv.end(), {"--proc", "/proc", "--dev", "/dev"});
  for (auto const& device : request.devices) argv.insert(argv.end(), {"--dev-bind-try", device, device});

  std::vector<entry> entries;
  add_system(entries, wanted.system_paths.empty() ? default_system_paths() : wanted.system_paths);
  add_existing(entries, wanted.writable_paths, entry_kind::read_write);
  add_existing(entries, wanted.exposed_paths, entry_kind::read_only);
  std::vector<entry> scratch, hidden;
  for (auto const& path : wanted.scratch_paths) { // made even where the host has none: /tmp, /dev/shm
    fs::path const normal = fs::path(path).lexically_normal();
    if (normal != normal.root_path()) scratch.push_back({normal, entry_kind::scratch, {}});
  }
  add_existing(hidden, wanted.hidden_paths, entry_kind::hide_folder);
  // A hidden path matters only inside something bound (a venv holding the suite, say).
  std::vector<entry> bound = entries;
  for (auto& hide : hidden) {
    bool const covered = std::any_of(bound.begin(), bound.end(), [&](const entry& e) {
      return e.kind != entry_kind::system_link && inside(hide.path, e.path) && hide.path != e.path;
    });
    if (!covered) continue;
    std::error_code ec;
    if (!fs::is_directory(hide.path, ec)) hide.kind = entry_kind::hide_file;
    entries.push_back(hide);
  }
  entries.insert(entries.end(), scratch.begin(), scratch.end());
  // bwrap makes missing parents 0700: the sandbox user could not walk to its own folder. Each
  // parent that lies in a tmpfs (the root, a scratch or hidden one) is made 0755 first.
  std::vector<entry> parents;
  for (auto const& e : entries) {
    for (fs::path parent = e.path.parent_path(); parent != parent.root_path() && !parent.empty(); parent = parent.parent_path()) {
      auto const same = [&](const entry& other) { return other.path == parent; };
      bool const in_bind = std::any_of(entries.begin(), entries.end(), [&](const entry& other) {
        return (other.kind == entry_kind::read_only || other.kind == entry_kind::read_write) && inside(parent, other.path);
      });
      if (in_bind || std::any_of(entries.begin(), entries.end(), same) || std::any_of(parents.begin(), parents.end(), same))
        continue;
      parents.push_back({parent, entry_kind::make_dir, {}});
    }
  }
  entries.insert(entries.end(), parents.begin(), parents.end());
  // Outer before inner: a bind under a hidden folder or a scratch tmpfs lands on top of it.
  std::stable_sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) { return depth(a.path) < depth(b.path); });
  std::vector<std::string> read_only_later;
  for (auto const& e : entries) {
    std::string const path = e.path.string();
    switch (e.kind) {
    case entry_kind::system_link:
      argv.insert(argv.end(), {"--symlink", e.link_target.string(), path});
      break;
    case entry_kind::read_only:
      argv.insert(argv.end(), {"--ro-bind", path, path});
      break;
    case entry_kind::read_write:
      argv.insert(argv.end(), {"--bind", path, path});
      break;
    case entry_kind::scratch:
      argv.insert(argv.end(), {"--perms", "1777"});
      if (wanted.scratch_max_bytes > 0) argv.insert(argv.end(), {"--size", std::to_string(wanted.scratch_max_bytes)});
      argv.insert(argv.end(), {"--tmpfs", path});
      break;
    case entry_kind::hide_folder:
      argv.insert(argv.end(), {"--perms", "0755", "--tmpfs", path});
      read_only_later.push_back(path);
      break;
    case entry_kind::hide_file:
      argv.insert(argv.end(), {"--ro-bind", "/dev/null", path});
      break;
    case entry_kind::make_dir:
      argv.insert(argv.end(), {"--perms", "0755", "--dir", path});
      break;
    }
  }
  for (auto const& path : read_only_later) argv.insert(argv.end(), {"--remount-ro", path});
  if (!request.cwd.empty()) argv.insert(argv.end(), {"--chdir", request.cwd});
  if (request.seccomp) argv.insert(argv.end(), {"--seccomp", std::to_string(bwrap_seccomp_fd)});
  argv.insert(argv.end(),
              {"--", request.setpriv, "--reuid=" + std::to_string(wanted.uid), "--regid=" + std::to_string(wanted.gid),
               "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"});
  argv.insert(argv.end(), request.program.begin(), request.program.end());
  return argv;
}

} // namespace arbiter::sandbox::detail
