// A tensor bundle (.arbb, docs/protocol.md): a candidate writes its outputs as bundles, which the
// judge reads (verify::read_bundle over the runtime's reader) and compares.
#include "arbiter/common/error.hpp"
#include "arbiter/verify/compare.hpp"
#include "fuzz_input.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<arbiter::verify::value> values;
  try {
    values = arbiter::verify::read_bundle(arbiter::fuzz::as_file(data, size));
  } catch (const arbiter::io_error&) { // the reader's typed error for a malformed file
    return 0;
  }
  const arbiter::catalog::tolerance tol;
  (void)arbiter::verify::compare_values(values, values, tol);
  (void)arbiter::verify::deviation_from(values, values);
  return 0;
}
