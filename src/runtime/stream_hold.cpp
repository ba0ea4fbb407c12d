#include "stream_hold.hpp"

#include "arbiter/runtime/arbiter_runtime.h"
#include "failure.hpp"

#include <atomic>

namespace arbiter::runtime {

namespace {

// sm_70 PTX runs on every later device through the driver's JIT. The hold polls a host-mapped
// word with volatile loads and gives up at a %globaltimer deadline; it records how it ended.
constexpr const char* k_ptx = R"(
.version 7.0
.target sm_70
.address_size 64

.visible .entry arbiter_hold(.param .u64 flag_ptr, .param .u64 timeout_ns, .param .u64 result_ptr)
{
    .reg .pred %p<3>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [flag_ptr];
    ld.param.u64 %rd2, [timeout_ns];
    ld.param.u64 %rd3, [result_ptr];
    mov.u64 %rd4, %globaltimer;
    add.u64 %rd5, %rd4, %rd2;
    mov.u32 %r2, 2;
WAIT:
    ld.volatile.global.u32 %r1, [%rd1];
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra RELEASED;
    mov.u64 %rd6, %globaltimer;
    setp.lt.u64 %p2, %rd6, %rd5;
    @%p2 bra WAIT;
    bra.uni DONE;
RELEASED:
    mov.u32 %r2, 1;
DONE:
    st.volatile.global.u32 [%rd3], %r2;
    ret;
}

.visible .entry arbiter_empty()
{
    ret;
}
)";

constexpr uint32_t k_released = 1;

} // namespace

stream_hold::stream_hold(const cuda_driver& driver) : m_driver(driver) {
  m_driver.check(m_driver.module_load_data(&m_module, k_ptx), "cuModuleLoadData (stream hold)");
  try {
    m_driver.check(m_driver.module_get_function(&m_hold, m_module, "arbiter_hold"), "cuModuleGetFunction (hold)");
    m_driver.check(m_driver.module_get_function(&m_empty, m_module, "arbiter_empty"), "cuModuleGetFunction (empty)");
    void* host = nullptr;
    m_driver.check(m_driver.mem_host_alloc(&host, 2 * sizeof(uint32_t), k_cu_host_alloc_portable_mapped),
                   "cuMemHostAlloc (stream hold flag)");
    m_words = static_cast<volatile uint32_t*>(host);
    m_words[0] = 0;
    m_words[1] = 0;
    m_driver.check(m_driver.mem_host_get_device_pointer(&m_device_words, host, 0), "cuMemHostGetDevicePointer");
  } catch (...) {
    free_resources();
    throw;
  }
}

stream_hold::~stream_hold() { free_resources(); }

void stream_hold::free_resources() noexcept {
  if (m_words) m_driver.mem_free_host(const_cast<uint32_t*>(m_words));
  if (m_module) m_driver.module_unload(m_module);
  m_words = nullptr;
  m_module = nullptr;
}

void stream_hold::engage(cu_stream stream, uint64_t timeout_ns) {
  m_words[0] = 0;
  m_words[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  cu_deviceptr flag = m_device_words;
  cu_deviceptr result = m_device_words + sizeof(uint32_t);
  void* params[] = {&flag, &timeout_ns, &result};
  m_driver.check(m_driver.launch_kernel(m_hold, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel (hold)");
}

void stream_hold::release() noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  m_words[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool stream_hold::released_by_host() const noexcept { return m_words[1] == k_released; }

void stream_hold::launch_empty(cu_stream stream) {
  m_driver.check(m_driver.launch_kernel(m_empty, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr), "cuLaunchKernel (empty)");
}

} // namespace arbiter::runtime
