#include "arbiter/common/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace arbiter {

namespace detail {

std::string located(const char* file, int line, const std::string& message) {
  return std::filesystem::path(file).filename().string() + ":" + std::to_string(line) + ": " + message;
}

void assert_fail(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "arbiter: assertion failed: %s at %s:%d\n", expr, file, line);
  std::abort();
}

} // namespace detail

void rethrow_with_context(const std::string& context) {
  try {
    throw;
  } catch (const config_error& e) {
    throw config_error(context + ": " + e.what());
  } catch (const io_error& e) {
    throw io_error(context + ": " + e.what());
  } catch (const store_error& e) {
    throw store_error(context + ": " + e.what());
  } catch (const internal_error& e) {
    throw internal_error(context + ": " + e.what());
  } catch (const error& e) {
    throw error(context + ": " + e.what());
  }
}

} // namespace arbiter
