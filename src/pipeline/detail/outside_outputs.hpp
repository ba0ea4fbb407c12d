#pragma once
/// A batch's outputs taken from the process's own memory (docs/guard.md, "The outside clock"): at
/// `outside_done` the runner names where each output tensor lies; the orchestrator holds every
/// process of the evaluation still, reads those bytes across the process boundary and writes them
/// as bundles out of its reach. Nothing the process does after its answer reaches them, and the
/// batch's wall and CPU time carry no file writes.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace arbiter::pipeline::detail {

/// One tensor the process declares: its dtype code, shape, and where its bytes are.
struct declared_tensor {
  std::int32_t dtype = 0;
  std::vector<std::int64_t> shape;
  std::uint64_t address = 0, nbytes = 0;
};

/// The `outputs` and `pid` of an outside_done event; `problem` says what is wrong with them ("" when
/// nothing).
struct declared_outputs {
  int pid = -1;
  std::vector<std::vector<declared_tensor>> sets;
  std::string problem;
};

/// The batch's outputs most a process may declare (the runner's batch heap's ceiling).
inline constexpr std::uint64_t k_max_declared_bytes = std::uint64_t{1} << 30;

/// Reads the event's declaration by type (the candidate's bytes: never throws): per input set a
/// list of tensors, each {"dtype", "shape", "address", "nbytes"}, at most k_max_declared_bytes in all.
declared_outputs parse_declared(const nlohmann::json& event);

/// Copies every declared tensor out of process host_pid's memory into <to>/<set>.arbb (the
/// process held still by the caller). Returns "" or what failed; no bundle is left for a set that
/// failed.
std::string keep_declared(const declared_outputs& outputs, int host_pid, const std::filesystem::path& to);

} // namespace arbiter::pipeline::detail
