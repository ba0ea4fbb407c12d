#pragma once
/// What the CUPTI side of the probe shares: the one recorder of the process, the check of a CUPTI
/// call, and the driver entry points it reaches through the already loaded libcuda.
#include "recorder.hpp"

#include <cuda.h>
#include <cupti.h>

#include <atomic>
#include <cstdint>

namespace arbiter::probe {

/// The process's recorder. Never destroyed: CUPTI may call in while the process exits.
recorder& the_recorder();

/// false and the failure noted in the evidence's "errors" unless rc is CUPTI_SUCCESS.
bool cupti_ok(CUptiResult rc, const char* what);

#define ARB_CUPTI_CALL(call) ::arbiter::probe::cupti_ok((call), #call)

/// The largest correlation id seen by an API callback so far; window boundaries.
extern std::atomic<std::uint32_t> g_max_correlation;

/// Driver entry points found with dlsym in the loaded libcuda; nullptr when absent.
struct driver_entry_points {
  CUresult (*ctx_get_current)(CUcontext*) = nullptr;
  CUresult (*driver_get_version)(int*) = nullptr; ///< the marker call: its callback moves g_max_correlation
};
const driver_entry_points& driver();

/// activity.cpp: registers the buffer callbacks and enables the activity kinds.
bool start_activity();
/// Hands every buffered record, complete or not, to the recorder.
void flush_activity();
/// Enables again every activity kind start_activity enabled: any code in the process may have
/// disabled one (CUPTI has no query for a kind's state; the callback API's count of each window's
/// launches is the check that one was off).
void reassert_activity();

/// injection.cpp: the probe's self-check at a marker (where: "begin" or "end"): every callback it
/// enabled is read back (one found disabled is noted in the evidence and enabled again), then its
/// activity kinds are enabled again.
void reassert_witness(const char* where);

/// markers.cpp: the evidence written at exit to $ARBITER_PROBE_OUT (read at initialisation).
void install_exit_writer();

} // namespace arbiter::probe
