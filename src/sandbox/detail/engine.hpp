#pragma once
/// Which engine builds the sandbox on this machine: bubblewrap when bwrap and setpriv are found
/// and a trial sandbox with the candidate's flags runs, else the hand-written one. Private to the
/// sandbox.
#include <string>

namespace arbiter::sandbox::detail {

struct bubblewrap_probe {
  bool works = false;
  std::string bwrap, setpriv; ///< the binaries found
  std::string note;           ///< when it does not work: why
};

/// Probed once per process (as root only; otherwise `works` is false): $ARBITER_BWRAP names the
/// binary ("off" forces the hand-written engine), else /usr/bin/bwrap, /bin/bwrap,
/// /usr/local/bin/bwrap.
const bubblewrap_probe& probe_bubblewrap();

} // namespace arbiter::sandbox::detail
