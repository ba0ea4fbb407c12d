#pragma once
/// Failures inside the runtime: a small exception carrying the C ABI error code, and the
/// thread-local last-error text that arb_last_error() returns. Nothing here crosses the C ABI;
/// c_api.cpp turns every exception into a code plus message.
#include <stdexcept>
#include <string>

namespace arbiter::runtime {

/// A failure that ends one runtime operation; code() is one of the ARB_E_* values.
class runtime_failure : public std::runtime_error {
 public:
  runtime_failure(int code, const std::string& message) : std::runtime_error(message), m_code(code) {}
  int code() const noexcept { return m_code; }

 private:
  int m_code;
};

/// Throws runtime_failure(code, message).
[[noreturn]] void fail(int code, const std::string& message);

/// Records message as this thread's last error.
void set_last_error(const std::string& message) noexcept;

/// This thread's last error ("" when none); valid until the next set_last_error on this thread.
const char* last_error() noexcept;

} // namespace arbiter::runtime
