#pragma once
/// The evidence file's signature (docs/probe.md, "Signed evidence"). The orchestrator hands each
/// candidate process a fresh key in a file the probe reads and deletes while the CUDA driver
/// initialises, before any candidate code runs; the probe writes HMAC-SHA256(key, evidence text)
/// beside the evidence. A candidate that writes its own probe.json cannot sign it.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter::probe {

/// 32 random bytes as 64 hex digits (OpenSSL's RAND_bytes); throws std::runtime_error if the
/// generator fails.
std::string new_evidence_key();

/// HMAC-SHA256 of text under the hex key, as 64 hex digits; "" when key is not hex.
std::string evidence_mac(std::string_view key_hex, std::string_view text);

/// Reads the key file and removes it; nullopt when it cannot be read or removed (an evidence file
/// is then written unsigned, and the orchestrator treats it as unsigned).
std::optional<std::string> take_evidence_key(const std::filesystem::path& key_file);

/// Where the signature of an evidence file lies: "<evidence>.mac".
std::filesystem::path mac_path(const std::filesystem::path& evidence_file);

} // namespace arbiter::probe
