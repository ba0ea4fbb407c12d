#include "arbiter/doctor/doctor.hpp"

#include "arbiter/common/device.hpp"
#include "arbiter/common/error.hpp"
#include "arbiter/common/hash.hpp"
#include "detail/environment_json.hpp"

namespace arbiter::doctor {
namespace {

/// One "key=value" line per field: a value cannot run into the next field, and adding a field
/// later changes every fingerprint only if it is added here.
std::string fingerprint_of(const store::hardware_record& record) {
  std::string text;
  auto const add = [&text](const char* key, const std::string& value) { text += std::string(key) + "=" + value + "\n"; };
  add("device", record.device);
  add("gpu_name", record.gpu_name);
  add("sm_count", std::to_string(record.sm_count));
  add("l2_bytes", std::to_string(record.l2_bytes));
  add("memory_bytes", std::to_string(record.memory_bytes));
  add("driver", record.driver);
  add("torch", record.torch);
  add("python", record.python);
  return sha256_hex(text);
}

} // namespace

store::hardware_record hardware_for(const environment& env, const std::string& device) {
  require_device(device, "device");
  if (device == "cuda" && !env.gpu.present) {
    ARB_THROW(config_error, "device cuda requested but no GPU is usable: " + env.gpu.error);
  }
  store::hardware_record record;
  record.device = device;
  if (device == "cuda") {
    record.gpu_name = env.gpu.name;
    record.sm_count = env.gpu.sm_count;
    record.l2_bytes = env.gpu.l2_bytes;
    record.memory_bytes = env.gpu.memory_bytes;
    record.driver = env.gpu.driver_version;
    record.cuda = env.python.torch_cuda_version;
  }
  record.torch = env.python.torch_version;
  record.python = env.python.version;
  record.host = env.host;
  record.json = detail::to_json(env).dump();
  record.fingerprint = fingerprint_of(record);
  return record;
}

} // namespace arbiter::doctor
