#include "arbiter/probe/signature.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace arbiter::probe {

namespace {

constexpr std::size_t k_key_bytes = 32;
constexpr char k_hex[] = "0123456789abcdef";

std::string to_hex(const unsigned char* bytes, std::size_t count) {
  std::string text;
  text.reserve(2 * count);
  for (std::size_t byte_idx = 0; byte_idx < count; ++byte_idx) {
    text.push_back(k_hex[bytes[byte_idx] >> 4]);
    text.push_back(k_hex[bytes[byte_idx] & 15]);
  }
  return text;
}

int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::optional<std::vector<unsigned char>> from_hex(std::string_view text) {
  if (text.empty() || text.size() % 2 != 0) return std::nullopt;
  std::vector<unsigned char> bytes;
  for (std::size_t pos = 0; pos < text.size(); pos += 2) {
    const int hi = nibble(text[pos]), lo = nibble(text[pos + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    bytes.push_back(static_cast<unsigned char>(hi * 16 + lo));
  }
  return bytes;
}

} // namespace

std::string new_evidence_key() {
  std::array<unsigned char, k_key_bytes> key{};
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1) throw std::runtime_error("RAND_bytes failed");
  return to_hex(key.data(), key.size());
}

std::string evidence_mac(std::string_view key_hex, std::string_view text) {
  const auto key = from_hex(key_hex);
  if (!key) return "";
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key->data(), static_cast<int>(key->size()), reinterpret_cast<const unsigned char*>(text.data()),
           text.size(), mac.data(), &length) == nullptr)
    return "";
  return to_hex(mac.data(), length);
}

std::optional<std::string> take_evidence_key(const std::filesystem::path& key_file) {
  std::string key;
  {
    std::ifstream in(key_file);
    if (!in) return std::nullopt;
    in >> key;
  }
  std::error_code ec;
  if (!std::filesystem::remove(key_file, ec) || ec || !from_hex(key)) return std::nullopt;
  return key;
}

std::filesystem::path mac_path(const std::filesystem::path& evidence_file) { return evidence_file.string() + ".mac"; }

} // namespace arbiter::probe
