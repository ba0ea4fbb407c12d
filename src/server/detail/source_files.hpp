#pragma once
/// Files the pages show beside the database's rows: a solution's source, an evaluation's log and
/// artifacts. Missing files are data ({"error": ...}), never exceptions: a moved solutions folder
/// must not break a page.
#include "arbiter/server/views.hpp"

#include <string>

namespace arbiter::server::detail {

/// {"file": name, "language": "python"|"cuda"|"cpp"|"text", "text": contents} of the solution's
/// entry file (kernel.py, else kernel.cu, else the first source), at most 256 KiB; or
/// {"file": null, "error": why}.
json read_solution_source(const std::string& solution_dir);
/// {"path", "lines": [last `lines` lines], "total_lines"} of <artifacts>/log.txt, or {"path", "error"}.
json read_log_tail(const std::string& artifacts_dir, std::size_t lines);
/// Names and sizes of the files directly under the artifacts folder (not its subfolders' contents).
json list_artifacts(const std::string& artifacts_dir);

} // namespace arbiter::server::detail
