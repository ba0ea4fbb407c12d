#include "arbiter/common/hash.hpp"
#include "arbiter/common/file.hpp"

#include "arbiter/common/error.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>

namespace arbiter {

namespace fs = std::filesystem;

namespace {

class digest {
 public:
  digest() : m_ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!m_ctx || EVP_DigestInit_ex(m_ctx.get(), EVP_sha256(), nullptr) != 1)
      ARB_THROW(internal_error, "cannot initialise SHA-256");
  }
  void update(std::string_view bytes) { EVP_DigestUpdate(m_ctx.get(), bytes.data(), bytes.size()); }
  std::string hex() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(m_ctx.get(), out, &len);
    static constexpr char k_hex[] = "0123456789abcdef";
    std::string text;
    for (unsigned int byte_idx = 0; byte_idx < len; ++byte_idx) {
      text.push_back(k_hex[out[byte_idx] >> 4]);
      text.push_back(k_hex[out[byte_idx] & 15]);
    }
    return text;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> m_ctx;
};

} // namespace

std::string sha256_hex(std::string_view bytes) {
  digest d;
  d.update(bytes);
  return d.hex();
}

std::string hash_files(const fs::path& root, const std::vector<fs::path>& files) {
  std::vector<fs::path> sorted = files;
  std::sort(sorted.begin(), sorted.end());
  digest d;
  for (const auto& rel : sorted) {
    const std::string name = rel.generic_string();
    const std::string body = read_file(root / rel);
    // Length-prefix both parts so that no two file sets produce the same byte stream.
    d.update(std::to_string(name.size()) + ":" + name + ":" + std::to_string(body.size()) + ":");
    d.update(body);
  }
  return d.hex();
}

std::vector<fs::path> list_files(const fs::path& root) {
  std::vector<fs::path> files;
  if (!fs::is_directory(root)) ARB_THROW(io_error, "not a directory: " + root.string());
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(".") || name == "__pycache__") {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(fs::relative(it->path(), root));
  }
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace arbiter
