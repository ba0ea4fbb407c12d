#include "arbiter/common/log.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace arbiter::log {

namespace {
std::atomic<int> g_level{static_cast<int>(level::info)};
std::mutex g_mutex;

const char* name_of(level l) {
  switch (l) {
  case level::debug:
    return "debug";
  case level::info:
    return "info";
  case level::warn:
    return "warn";
  case level::error:
    return "error";
  case level::off:
    return "off";
  }
  return "?";
}
} // namespace

level current() { return static_cast<level>(g_level.load(std::memory_order_relaxed)); }

void set_level(level l) { g_level.store(static_cast<int>(l), std::memory_order_relaxed); }

void init_from_env() {
  const char* value = std::getenv("ARBITER_LOG");
  if (value == nullptr) return;
  const std::string name(value);
  for (level l : {level::debug, level::info, level::warn, level::error, level::off})
    if (name == name_of(l)) set_level(l);
}

void write(level l, std::string_view stage, std::string_view message) {
  std::lock_guard lock(g_mutex);
  std::fprintf(stderr, "[%s] [%.*s] %.*s\n", name_of(l), static_cast<int>(stage.size()), stage.data(),
               static_cast<int>(message.size()), message.data());
}

} // namespace arbiter::log
