// Leaderboard rendering: a human table, JSON, CSV (RFC 4180) and Markdown over the same rows.
// Human formats round (speedups 2 decimals, score 3, pass@1 one decimal of a percent); JSON and
// CSV carry full precision for machines.
#include "arbiter/report/leaderboard.hpp"

#include "arbiter/common/error.hpp"
#include "arbiter/common/json_number.hpp"
#include "arbiter/report/row_json.hpp"
#include "arbiter/report/escape.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

namespace arbiter::report {

namespace {

constexpr std::string_view k_none = "—";
constexpr std::size_t k_columns = 15;
enum class align : std::uint8_t { left, right };

constexpr std::array<std::string_view, k_columns> k_titles{
    "rank",         "model",       "attempted",         "passed",   "pass@1",
    "mean",         "median",      "geomean",           "score",    "tokens/solved",
    "cache/solved", "cost/solved", "agent time/solved", "rejected", "verdicts"};
constexpr std::array<align, k_columns> k_align{align::right, align::left,  align::right, align::right, align::right,
                                               align::right, align::right, align::right, align::right, align::right,
                                               align::right, align::right, align::right, align::right, align::left};

using row_cells = std::array<std::string, k_columns>;

std::string speedup_cell(const std::optional<double>& speedup) {
  return speedup ? fmt::format("{:.2f}×", *speedup) : std::string(k_none);
}

/// Tokens rounded for people: 812, 48.2k, 1.25M.
std::string count_cell(const std::optional<double>& count) {
  if (!count) return std::string(k_none);
  if (*count < 1e4) return fmt::format("{:.0f}", *count);
  if (*count < 1e6) return fmt::format("{:.1f}k", *count / 1e3);
  return fmt::format("{:.2f}M", *count / 1e6);
}

std::string cost_cell(const std::optional<double>& usd) { return usd ? fmt::format("${:.3f}", *usd) : std::string(k_none); }

/// Seconds as people read them: 42.0 s, 5.2 min, 3.1 h.
std::string duration_cell(const std::optional<double>& seconds) {
  if (!seconds) return std::string(k_none);
  if (*seconds < 100) return fmt::format("{:.1f} s", *seconds);
  if (*seconds < 6000) return fmt::format("{:.1f} min", *seconds / 60);
  return fmt::format("{:.1f} h", *seconds / 3600);
}

/// "model · harness", or the model alone when its solutions name no harness; marked where some of
/// its evaluations were judged under another guard version.
std::string model_cell(const score::model_summary& row) {
  const std::string name = row.harness.empty() ? row.model : row.model + " · " + row.harness;
  return row.stale_guard > 0 ? fmt::format("{} (stale guard: {})", name, row.stale_guard) : name;
}

/// Under the table, where any row is marked stale: what the mark means and what clears it.
void write_stale_note(std::ostream& out, const leaderboard_header& header, const std::vector<score::model_summary>& rows,
                      std::string_view prefix) {
  if (std::none_of(rows.begin(), rows.end(), [](const auto& row) { return row.stale_guard > 0; })) return;
  out << '\n'
      << prefix << "stale guard: evaluations judged under a guard version other than " << header.guard_version
      << "; `arbiter rejudge` judges them again\n";
}

/// First-sample verdicts other than passed (the passed column has those): "incorrect 6, compile_error 1".
std::string failure_breakdown(const score::model_summary& row) {
  std::string out;
  for (const auto& [name, count] : row.verdict_counts) {
    if (name == "passed") continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, count);
  }
  return out;
}

row_cells human_cells(std::size_t rank, const score::model_summary& row) {
  const std::string failures = failure_breakdown(row);
  return {std::to_string(rank),
          model_cell(row),
          std::to_string(row.attempted),
          std::to_string(row.passed),
          fmt::format("{:.1f}%", row.pass_at_1 * 100),
          speedup_cell(row.mean_speedup),
          speedup_cell(row.median_speedup),
          speedup_cell(row.geomean_speedup),
          fmt::format("{:.3f}", row.kernelarena_score),
          count_cell(row.per_solved.tokens),
          count_cell(row.per_solved.cache_tokens),
          cost_cell(row.per_solved.cost_usd),
          duration_cell(row.per_solved.wall_s),
          std::to_string(row.rejected),
          failures.empty() ? std::string(k_none) : failures};
}

/// Columns a terminal gives the text: UTF-8 code points (× and — are one column each).
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// ---- table ------------------------------------------------------------------------------------

void write_header_lines(std::ostream& out, const leaderboard_header& header) {
  out << "suite:     " << header.suite << '\n'
      << "campaign:  " << header.campaign << '\n'
      << "device:    " << header.device << '\n'
      << "ranked by: " << header.ranked_by << '\n'
      << '\n';
}

void write_aligned(std::ostream& out, const row_cells& cells, const std::array<std::size_t, k_columns>& widths) {
  std::string line;
  for (std::size_t col = 0; col < k_columns; ++col) {
    const std::string padding(widths[col] - display_width(cells[col]), ' ');
    if (col > 0) line += "  ";
    line += k_align[col] == align::right ? padding + cells[col] : cells[col] + padding;
  }
  line.erase(line.find_last_not_of(' ') + 1);
  out << line << '\n';
}

void render_table(std::ostream& out, const leaderboard_header& header, const std::vector<score::model_summary>& rows) {
  write_header_lines(out, header);
  std::vector<row_cells> table;
  table.push_back({});
  std::copy(k_titles.begin(), k_titles.end(), table.front().begin());
  for (std::size_t idx = 0; idx < rows.size(); ++idx) table.push_back(human_cells(idx + 1, rows[idx]));
  std::array<std::size_t, k_columns> widths{};
  for (const row_cells& cells : table)
    for (std::size_t col = 0; col < k_columns; ++col) widths[col] = std::max(widths[col], display_width(cells[col]));
  for (const row_cells& cells : table) write_aligned(out, cells, widths);
  if (rows.empty()) out << "(no finished evaluations)\n";
  write_stale_note(out, header, rows, "");
}

// ---- markdown ---------------------------------------------------------------------------------

void write_markdown_row(std::ostream& out, const row_cells& cells) {
  out << '|';
  for (const std::string& cell : cells) out << ' ' << markdown_cell(cell) << " |";
  out << '\n';
}

void render_markdown(std::ostream& out, const leaderboard_header& header, const std::vector<score::model_summary>& rows) {
  out << "- suite: " << markdown_cell(header.suite) << '\n'
      << "- campaign: " << markdown_cell(header.campaign) << '\n'
      << "- device: " << markdown_cell(header.device) << '\n'
      << "- ranked by: " << markdown_cell(header.ranked_by) << "\n\n";
  row_cells titles;
  std::copy(k_titles.begin(), k_titles.end(), titles.begin());
  write_markdown_row(out, titles);
  out << '|';
  for (align a : k_align) out << (a == align::right ? " ---: |" : " :--- |");
  out << '\n';
  for (std::size_t idx = 0; idx < rows.size(); ++idx) write_markdown_row(out, human_cells(idx + 1, rows[idx]));
  write_stale_note(out, header, rows, "- ");
}

// ---- json -------------------------------------------------------------------------------------

void render_json(std::ostream& out, const leaderboard_header& header, const std::vector<score::model_summary>& rows) {
  nlohmann::ordered_json doc = {{"suite", header.suite},
                                {"campaign", header.campaign},
                                {"device", header.device},
                                {"ranked_by", header.ranked_by},
                                {"guard_version", header.guard_version},
                                {"timing_methods", nlohmann::ordered_json::object()},
                                {"rows", nlohmann::ordered_json::array()}};
  for (const auto& [method, count] : header.timing_methods) doc["timing_methods"][method] = count;
  for (std::size_t idx = 0; idx < rows.size(); ++idx) doc["rows"].push_back(row_json(idx + 1, rows[idx]));
  out << doc.dump(2) << '\n';
}

// ---- csv --------------------------------------------------------------------------------------

std::string csv_number(const std::optional<double>& value) { return value ? fmt::format("{}", *value) : ""; }

void write_csv_record(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t idx = 0; idx < fields.size(); ++idx) out << (idx ? "," : "") << csv_field(fields[idx]);
  out << "\r\n";
}

void render_csv(std::ostream& out, const std::vector<score::model_summary>& rows) {
  std::vector<std::string> titles{"rank",      "model",        "harness",        "problems",        "attempted",        "passed",
                                  "pass_at_1", "mean_speedup", "median_speedup", "geomean_speedup", "kernelarena_score"};
  for (const double p : score::k_fast_p_thresholds) titles.push_back(fmt::format("fast_{}", p));
  for (const char* title : {"tokens_per_solved", "cache_tokens_per_solved", "cost_per_solved_usd", "wall_s_per_solved",
                            "rejected", "stale_guard", "verdicts"})
    titles.emplace_back(title);
  write_csv_record(out, titles);
  for (std::size_t idx = 0; idx < rows.size(); ++idx) {
    const score::model_summary& row = rows[idx];
    std::vector<std::string> fields{std::to_string(idx + 1),
                                    row.model,
                                    row.harness,
                                    std::to_string(row.problems),
                                    std::to_string(row.attempted),
                                    std::to_string(row.passed),
                                    fmt::format("{}", row.pass_at_1),
                                    csv_number(row.mean_speedup),
                                    csv_number(row.median_speedup),
                                    csv_number(row.geomean_speedup),
                                    fmt::format("{}", row.kernelarena_score)};
    for (const double share : row.fast_p) fields.push_back(fmt::format("{}", share));
    for (auto&& field : {csv_number(row.per_solved.tokens), csv_number(row.per_solved.cache_tokens),
                         csv_number(row.per_solved.cost_usd), csv_number(row.per_solved.wall_s), std::to_string(row.rejected),
                         std::to_string(row.stale_guard), failure_breakdown(row)})
      fields.push_back(field);
    write_csv_record(out, fields);
  }
}

} // namespace

void render_leaderboard(std::ostream& out, const leaderboard_header& header, const std::vector<score::model_summary>& rows,
                        format output_format) {
  switch (output_format) {
  case format::table:
    return render_table(out, header, rows);
  case format::json:
    return render_json(out, header, rows);
  case format::csv:
    return render_csv(out, rows);
  case format::markdown:
    return render_markdown(out, header, rows);
  }
  ARB_THROW(internal_error, fmt::format("unknown leaderboard format {}", static_cast<int>(output_format)));
}

} // namespace arbiter::report
