// The v1 side of an evaluation's cgroup (detail/cgroup.hpp): on a hybrid host the cgroup2 has no
// controllers, so a limit it cannot hold (the one granted core's quota, a cpuset, the process cap)
// is written in a folder of the v1 hierarchy that has the controller.
#include "detail/cgroup.hpp"

#include <fstream>
#include <sstream>

namespace arbiter::sandbox::detail {
namespace {

bool in_comma_list(const std::string& list, const std::string& word) {
  std::istringstream items(list);
  for (std::string item; std::getline(items, item, ',');)
    if (item == word) return true;
  return false;
}

struct v1_mount {
  std::string point, root;
};

/// The v1 hierarchy mounted with `controller` among its options ("rw,cpu,cpuacct").
v1_mount find_v1_mount(const std::string& controller) {
  std::ifstream mounts("/proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    auto const dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream tail(line.substr(dash + 3));
    std::string type, source, options;
    tail >> type >> source >> options;
    if (type != "cgroup" || !in_comma_list(options, controller)) continue;
    std::istringstream fields(line);
    std::string id, parent, devices;
    v1_mount found;
    fields >> id >> parent >> devices >> found.root >> found.point;
    return found;
  }
  return {};
}

/// arbiter's own cgroup in that hierarchy: "/path" of the /proc/self/cgroup line naming it.
std::string own_v1_cgroup(const std::string& controller) {
  std::ifstream cgroups("/proc/self/cgroup");
  for (std::string line; std::getline(cgroups, line);) {
    auto const first = line.find(':');
    auto const second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    if (in_comma_list(line.substr(first + 1, second - first - 1), controller)) return line.substr(second + 1);
  }
  return {};
}

} // namespace

std::string cgroup_v1_parent(const std::string& controller, std::string& why) {
  v1_mount const mount = find_v1_mount(controller);
  if (mount.point.empty()) {
    why = "no cgroup v1 hierarchy has " + controller;
    return {};
  }
  return own_cgroup_folder(mount.point, mount.root, own_v1_cgroup(controller), why);
}

} // namespace arbiter::sandbox::detail
