#include "arbiter/common/file.hpp"

#include "arbiter/common/error.hpp"

#include <fstream>
#include <iterator>

namespace arbiter {

std::optional<std::string> try_read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string read_file(const std::filesystem::path& file) {
  auto text = try_read_file(file);
  if (!text) ARB_THROW(io_error, "cannot read " + file.string());
  return std::move(*text);
}

} // namespace arbiter
