#pragma once
/// Whole-file reads, the one way arbiter reads a file it needs entire (sources, traces, evidence).
#include <filesystem>
#include <optional>
#include <string>

namespace arbiter {

/// The file's bytes, or std::nullopt when it cannot be opened.
std::optional<std::string> try_read_file(const std::filesystem::path& file);

/// The file's bytes. Throws io_error "cannot read <file>" when it cannot be opened.
std::string read_file(const std::filesystem::path& file);

} // namespace arbiter
