// CUPTI's activity buffers → the recorder. The record structs are those of CUPTI 13
// (CUpti_ActivityKernel10, Memcpy6, MemcpyPtoP4, Memset4); later versions only append fields.
#include "cupti_glue.hpp"

#include <cstdlib>
#include <string>
#include <vector>

namespace arbiter::probe {

namespace {

constexpr std::size_t k_buffer_bytes = 8u << 20;
constexpr std::size_t k_buffer_align = 8;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(k_buffer_align, k_buffer_bytes));
  *size = *buffer == nullptr ? 0 : k_buffer_bytes;
  *max_records = 0;
}

void take_kernel(const CUpti_ActivityKernel10& k) {
  kernel_record r;
  r.name = k.name;
  r.correlation = k.correlationId;
  r.run = {k.streamId, k.contextId, k.deviceId, {k.gridX, k.gridY, k.gridZ}, {k.blockX, k.blockY, k.blockZ}, k.start, k.end};
  the_recorder().kernel(r);
}

void take(const CUpti_Activity* record) {
  switch (record->kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    take_kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
    break;
  case CUPTI_ACTIVITY_KIND_MEMCPY: {
    const auto& m = *reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
    the_recorder().copy({m.correlationId, m.streamId, m.start, m.end});
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMCPY2: {
    const auto& m = *reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
    the_recorder().copy({m.correlationId, m.streamId, m.start, m.end});
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMSET: {
    const auto& m = *reinterpret_cast<const CUpti_ActivityMemset4*>(record);
    the_recorder().memset({m.correlationId, m.streamId, m.start, m.end});
    break;
  }
  default:
    break;
  }
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) take(record);
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS && dropped > 0)
    the_recorder().dropped(dropped);
  std::free(buffer);
}

/// The kinds start_activity enabled: those reassert_activity enables again.
std::vector<CUpti_ActivityKind>& enabled_kinds() {
  static auto* kinds = new std::vector<CUpti_ActivityKind>();
  return *kinds;
}

/// cuptiActivityEnable; a kind that is enabled joins enabled_kinds. `quiet`: a refusal is not an error.
bool enable_kind(CUpti_ActivityKind kind, bool quiet) {
  const CUptiResult rc = cuptiActivityEnable(kind);
  if (rc == CUPTI_SUCCESS) enabled_kinds().push_back(kind);
  else if (!quiet) cupti_ok(rc, ("cuptiActivityEnable(kind " + std::to_string(static_cast<int>(kind)) + ")").c_str());
  return rc == CUPTI_SUCCESS;
}

} // namespace

bool start_activity() {
  if (!ARB_CUPTI_CALL(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed))) return false;
  // Concurrent kernel records keep kernels concurrent; the serialising KERNEL kind is the fallback.
  const bool kernels = enable_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, true) || enable_kind(CUPTI_ACTIVITY_KIND_KERNEL, false);
  enable_kind(CUPTI_ACTIVITY_KIND_MEMCPY, false);
  enable_kind(CUPTI_ACTIVITY_KIND_MEMSET, false);
  enable_kind(CUPTI_ACTIVITY_KIND_MEMCPY2, true); // peer copies; absent on some platforms
  return kernels;
}

void reassert_activity() {
  for (const auto kind : enabled_kinds()) ARB_CUPTI_CALL(cuptiActivityEnable(kind));
}

void flush_activity() { ARB_CUPTI_CALL(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)); }

} // namespace arbiter::probe
