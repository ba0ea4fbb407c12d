#pragma once
/// Levelled logging to stderr; the level is checked before the message is formatted.
/// Each line: "[level] [stage] message". Results go to stdout, never through here.
#include <fmt/format.h>

#include <string_view>

namespace arbiter::log {

enum class level : int { debug = 0, info = 1, warn = 2, error = 3, off = 4 };

level current();
void set_level(level l);
/// Reads ARBITER_LOG (debug|info|warn|error|off); unknown values leave the level unchanged.
void init_from_env();
void write(level l, std::string_view stage, std::string_view message);

} // namespace arbiter::log

#define ARB_LOG(lvl, stage, ...)                                                                                                 \
  do {                                                                                                                           \
    if (static_cast<int>(lvl) >= static_cast<int>(::arbiter::log::current()))                                                    \
      ::arbiter::log::write(lvl, stage, fmt::format(__VA_ARGS__));                                                               \
  } while (0)
#define ARB_DEBUG(stage, ...) ARB_LOG(::arbiter::log::level::debug, stage, __VA_ARGS__)
#define ARB_INFO(stage, ...) ARB_LOG(::arbiter::log::level::info, stage, __VA_ARGS__)
#define ARB_WARN(stage, ...) ARB_LOG(::arbiter::log::level::warn, stage, __VA_ARGS__)
#define ARB_ERROR(stage, ...) ARB_LOG(::arbiter::log::level::error, stage, __VA_ARGS__)
