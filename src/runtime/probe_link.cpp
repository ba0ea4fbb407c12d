#include "probe_link.hpp"

#include <dlfcn.h>

namespace arbiter::runtime {

namespace {

// The probe's soname: the driver loaded it by its path, which the probe then removed from the
// environment; a loaded library answers to its soname as well.
constexpr const char* k_probe_soname = "libarbiter_probe.so";

probe_link resolve() {
  probe_link link;
  void* library = dlopen(k_probe_soname, RTLD_NOW | RTLD_NOLOAD); // loaded by the driver, or absent
  if (!library) return link;
  const auto claim = reinterpret_cast<int (*)(uint64_t*)>(dlsym(library, "arbiter_probe_claim"));
  const auto begin = reinterpret_cast<decltype(link.begin)>(dlsym(library, "arbiter_probe_begin"));
  const auto end = reinterpret_cast<decltype(link.end)>(dlsym(library, "arbiter_probe_end"));
  dlclose(library); // RTLD_NOLOAD took a reference; the driver's keeps it loaded
  // A token already claimed by someone else: the runtime marks nothing, and the probe has counted
  // the refused claim (a run without windows is itself a finding).
  if (!claim || !begin || !end || claim(&link.token) != 0) return link;
  link.begin = begin;
  link.end = end;
  return link;
}

// Claimed as the runtime is loaded: the runner loads it after cuInit (when the driver loaded the
// probe) and before it imports the candidate's code.
[[maybe_unused]] const bool g_claimed_at_load = probe_link::get().present();

} // namespace

const probe_link& probe_link::get() {
  static const probe_link link = resolve();
  return link;
}

} // namespace arbiter::runtime
