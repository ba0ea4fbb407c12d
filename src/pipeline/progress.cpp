#include "arbiter/pipeline/progress.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <unistd.h>

namespace arbiter::pipeline {

namespace {

std::string result_text(const outcome& result, std::optional<double> speedup, bool resumed) {
  if (resumed) return "done earlier";
  std::string text(to_string(result.v));
  if (speedup) text += fmt::format(" {:.2f}×", *speedup);
  return text;
}

class line_progress final : public progress {
 public:
  void begin(std::int64_t total, const std::string& campaign) override {
    m_total = total;
    std::fprintf(stderr, "campaign %s: %lld evaluations\n", campaign.c_str(), static_cast<long long>(total));
  }
  void start(const std::string&) override {}
  void finish(const std::string& label, const outcome& result, std::optional<double> speedup, bool resumed) override {
    ++m_done;
    std::string line = fmt::format("[{}/{}] {} {}", m_done, m_total, label, result_text(result, speedup, resumed));
    if (!resumed && result.v != verdict::passed) line += " — " + result.reason;
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  void end() override {}

 private:
  std::int64_t m_total = 0, m_done = 0;
};

class bar_progress final : public progress {
 public:
  void begin(std::int64_t total, const std::string& campaign) override {
    m_total = total;
    std::fprintf(stderr, "campaign %s\n", campaign.c_str());
  }
  void start(const std::string& label) override { draw(label + " …"); }
  void finish(const std::string& label, const outcome& result, std::optional<double> speedup, bool resumed) override {
    ++m_done;
    // Finished lines scroll above the bar so the whole history stays readable.
    std::fprintf(stderr, "\r\033[2K  %-40s %s\n", label.c_str(), result_text(result, speedup, resumed).c_str());
    draw("");
  }
  void end() override { std::fprintf(stderr, "\r\033[2K"); }

 private:
  void draw(const std::string& current) {
    constexpr int k_width = 30;
    const int filled = m_total > 0 ? static_cast<int>(k_width * m_done / m_total) : 0;
    std::fprintf(stderr, "\r\033[2K[%s%s] %lld/%lld %s", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(k_width - filled), '.').c_str(), static_cast<long long>(m_done),
                 static_cast<long long>(m_total), current.c_str());
    std::fflush(stderr);
  }
  std::int64_t m_total = 0, m_done = 0;
};

} // namespace

std::unique_ptr<progress> make_console_progress() {
  if (::isatty(STDERR_FILENO)) return std::make_unique<bar_progress>();
  return std::make_unique<line_progress>();
}

} // namespace arbiter::pipeline
