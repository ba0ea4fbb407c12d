#include "detail/outside_outputs.hpp"

#include "arbiter/common/json_field.hpp"
#include "arbiter/runtime/arbiter_runtime.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

namespace {

/// One tensor's declaration, or nullopt with what is wrong in `problem`.
std::optional<declared_tensor> parse_tensor(const nlohmann::json& value, std::string& problem) {
  declared_tensor tensor;
  const auto dtype = integer_at<std::int32_t>(value, "dtype");
  const auto address = integer_at<std::uint64_t>(value, "address");
  const auto nbytes = integer_at<std::uint64_t>(value, "nbytes");
  const auto shape = value.is_object() ? value.find("shape") : value.end();
  if (!dtype || !address || !nbytes || shape == value.end() || !shape->is_array() || shape->size() > ARB_MAX_NDIM) {
    problem = "an output declared without dtype, address, nbytes or a shape of at most 8 sizes";
    return std::nullopt;
  }
  for (const auto& size : *shape) {
    if (!size.is_number_integer()) {
      problem = "an output shape holding something other than integers";
      return std::nullopt;
    }
    tensor.shape.push_back(size.get<std::int64_t>());
  }
  tensor.dtype = *dtype;
  tensor.address = *address;
  tensor.nbytes = *nbytes;
  return tensor;
}

/// Reads nbytes at address in process pid into dst; "" or the error.
std::string read_remote(int pid, std::uint64_t address, unsigned char* dst, std::uint64_t nbytes) {
  std::uint64_t done = 0;
  while (done < nbytes) {
    const std::size_t part = static_cast<std::size_t>(std::min<std::uint64_t>(nbytes - done, std::uint64_t{1} << 30));
    iovec local{dst + done, part};
    iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(address + done)), part};
    const ssize_t got = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::strerror(errno);
    if (got == 0) return "nothing could be read";
    done += static_cast<std::uint64_t>(got);
  }
  return "";
}

/// One set's tensors into `file`; "" or what failed.
std::string keep_set(const std::vector<declared_tensor>& tensors, int host_pid, const fs::path& file) {
  arb_writer* writer = nullptr;
  if (arb_writer_open(file.c_str(), &writer) != ARB_OK) return arb_last_error();
  std::vector<unsigned char> data;
  for (const auto& tensor : tensors) {
    data.resize(static_cast<std::size_t>(tensor.nbytes));
    std::string error = read_remote(host_pid, tensor.address, data.data(), tensor.nbytes);
    if (error.empty() &&
        arb_writer_add(writer, ARB_KIND_TENSOR, tensor.dtype, static_cast<std::int32_t>(tensor.shape.size()), tensor.shape.data(),
                       data.data(), tensor.nbytes) != ARB_OK)
      error = arb_last_error();
    if (!error.empty()) {
      arb_writer_close(writer); // the count is written, then removed below
      std::error_code ignored;
      fs::remove(file, ignored);
      return error;
    }
  }
  return arb_writer_close(writer) == ARB_OK ? "" : arb_last_error();
}

} // namespace

declared_outputs parse_declared(const nlohmann::json& event) {
  declared_outputs declared;
  declared.pid = integer_or<int>(event, "pid", -1);
  const auto sets = event.is_object() ? event.find("outputs") : event.end();
  if (declared.pid <= 0 || sets == event.end() || !sets->is_array()) {
    declared.problem = "no pid and outputs declared";
    return declared;
  }
  std::uint64_t total = 0;
  for (const auto& set : *sets) {
    if (!set.is_array()) {
      declared.problem = "a set's outputs declared as something other than a list";
      return declared;
    }
    auto& tensors = declared.sets.emplace_back();
    for (const auto& value : set) {
      const auto tensor = parse_tensor(value, declared.problem);
      if (!tensor) return declared;
      total += std::min(tensor->nbytes, k_max_declared_bytes + 1);
      if (total > k_max_declared_bytes) {
        declared.problem = "outputs declared over " + std::to_string(k_max_declared_bytes >> 20) + " MiB";
        return declared;
      }
      tensors.push_back(*tensor);
    }
  }
  return declared;
}

std::string keep_declared(const declared_outputs& outputs, int host_pid, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) return "cannot make " + to.string() + ": " + ec.message();
  for (std::size_t set_idx = 0; set_idx < outputs.sets.size(); ++set_idx)
    if (std::string error = keep_set(outputs.sets[set_idx], host_pid, to / (std::to_string(set_idx) + ".arbb")); !error.empty())
      return "set " + std::to_string(set_idx) + ": " + error;
  return "";
}

} // namespace arbiter::pipeline::detail
