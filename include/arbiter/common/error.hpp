#pragma once
/// Typed exceptions for failures that end an operation. Expected outcomes of evaluating a
/// solution are never exceptions: they are verdicts (common/verdict.hpp).
#include <stdexcept>
#include <string>

namespace arbiter {

/// Base of every arbiter exception; what() carries "file:line: message" plus any context added
/// by layers that rethrew it.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad user input: a suite, problem, solution, option or configuration file.
class config_error : public error {
 public:
  using error::error;
};

/// A file or process operation failed.
class io_error : public error {
 public:
  using error::error;
};

/// The database refused or failed an operation.
class store_error : public error {
 public:
  using error::error;
};

/// A bug: an invariant arbiter itself broke.
class internal_error : public error {
 public:
  using error::error;
};

namespace detail {
std::string located(const char* file, int line, const std::string& message);
[[noreturn]] void assert_fail(const char* expr, const char* file, int line);
} // namespace detail

/// Rethrows the current arbiter::error of the same type with "context: " prepended.
[[noreturn]] void rethrow_with_context(const std::string& context);

} // namespace arbiter

#define ARB_THROW(type, message) throw type(::arbiter::detail::located(__FILE__, __LINE__, (message)))
#define ARB_ASSERT(expr)                                                                                                         \
  do {                                                                                                                           \
    if (!(expr)) ::arbiter::detail::assert_fail(#expr, __FILE__, __LINE__);                                                      \
  } while (0)
