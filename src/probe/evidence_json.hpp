#pragma once
/// The evidence file (docs/probe.md): {"version": 1, "contexts", "streams_created", ...}.
#include "recorder.hpp"

#include <filesystem>
#include <string>

namespace arbiter::probe {

inline constexpr int k_evidence_version = 1;

/// The evidence as JSON text.
std::string evidence_json(const evidence& e);

/// Writes text to path atomically: a temporary file beside it, then rename. false when it fails.
bool write_atomically(const std::filesystem::path& path, const std::string& text);

} // namespace arbiter::probe
