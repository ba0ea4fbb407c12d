#pragma once
/// Progress of a campaign: a bar on a terminal, plain lines otherwise (both on stderr).
#include "arbiter/common/verdict.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace arbiter::pipeline {

class progress {
 public:
  virtual ~progress() = default;
  virtual void begin(std::int64_t total, const std::string& campaign) = 0;
  /// About to run `label` (problem/model).
  virtual void start(const std::string& label) = 0;
  virtual void finish(const std::string& label, const outcome& result, std::optional<double> speedup, bool resumed) = 0;
  virtual void end() = 0;
};

/// A bar redrawn in place when stderr is a terminal, else one line per evaluation.
std::unique_ptr<progress> make_console_progress();

} // namespace arbiter::pipeline
