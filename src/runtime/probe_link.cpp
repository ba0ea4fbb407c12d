#include "probe_link.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace arbiter::runtime {

namespace {

probe_link resolve() {
  probe_link link;
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (!path || !*path) return link;
  void* library = dlopen(path, RTLD_NOW | RTLD_NOLOAD); // loaded by the driver, or absent
  if (!library) return link;
  link.begin = reinterpret_cast<decltype(link.begin)>(dlsym(library, "arbiter_probe_begin"));
  link.end = reinterpret_cast<decltype(link.end)>(dlsym(library, "arbiter_probe_end"));
  return link;
}

} // namespace

const probe_link& probe_link::get() {
  static const probe_link link = resolve();
  return link;
}

} // namespace arbiter::runtime
