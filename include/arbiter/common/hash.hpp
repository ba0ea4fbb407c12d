#pragma once
/// Content hashes (SHA-256, lowercase hex) for problems and solutions.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter {

std::string sha256_hex(std::string_view bytes);

/// Digest over the files' relative paths and contents, in sorted path order, so that renaming,
/// adding or editing any file changes it. Throws io_error naming an unreadable file.
std::string hash_files(const std::filesystem::path& root, const std::vector<std::filesystem::path>& files);

/// Every regular file under root (recursive), relative to root, sorted; skips names starting
/// with '.' and __pycache__ folders.
std::vector<std::filesystem::path> list_files(const std::filesystem::path& root);

} // namespace arbiter
