#pragma once
/// The names of the events a runner process writes to its channel (docs/protocol.md, "Events"),
/// one list for every reader: the evaluation's events, the outside clock, the calibration and the
/// suite check. The runner's own list is python/arbiter_runner/events.py's EVENTS, which refuses a
/// name it does not hold; tests/unit/common/frames_test.cpp holds the two lists together, so a
/// name renamed on one side fails a test instead of an event going unread.
#include <array>
#include <string_view>

namespace arbiter::event_name {

inline constexpr std::string_view start = "start";                 ///< the runner's mode and versions
inline constexpr std::string_view gate = "gate";                   ///< the gate opened (a candidate started ahead)
inline constexpr std::string_view loaded = "loaded";               ///< the solution or reference imported
inline constexpr std::string_view weights = "weights";             ///< the state dict handed over
inline constexpr std::string_view case_ = "case";                  ///< one correctness case
inline constexpr std::string_view census = "census";               ///< the runner's thread census
inline constexpr std::string_view integrity = "integrity";         ///< objects found patched
inline constexpr std::string_view timing = "timing";               ///< a shape's record from the runtime
inline constexpr std::string_view timed = "timed";                 ///< a shape timed, its capture index
inline constexpr std::string_view outside_ready = "outside_ready"; ///< a batch of the outside clock may start
inline constexpr std::string_view outside_done = "outside_done";   ///< its calls answered
inline constexpr std::string_view calibration = "calibration";     ///< one peak measured or skipped
inline constexpr std::string_view shape_check = "shape_check";     ///< one shape of the suite check
inline constexpr std::string_view error = "error";                 ///< the run's failure
inline constexpr std::string_view done = "done";                   ///< the runner's last word

inline constexpr std::array all{start, gate,          loaded,       weights,     case_,       census, integrity, timing,
                                timed, outside_ready, outside_done, calibration, shape_check, error,  done};

} // namespace arbiter::event_name
