// Kernel names as people read them.
#include "recorder.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace arbiter::probe {

std::string demangle(const char* name, std::size_t max_bytes) {
  if (name == nullptr) return "";
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> plain(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  std::string out = status == 0 && plain ? plain.get() : name;
  if (out.size() > max_bytes) out = out.substr(0, max_bytes > 3 ? max_bytes - 3 : 0) + "...";
  return out;
}

} // namespace arbiter::probe
