#include "arbiter/agent/http.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace arbiter::agent {

namespace {

std::string short_body(const std::string& body) {
  std::string out = body.substr(0, 300);
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

std::string failure_line(const http_response& response) {
  if (response.status == 0) return "no response: " + response.transport_error;
  return "HTTP " + std::to_string(response.status) + ": " + short_body(response.body);
}

} // namespace

bool retryable(const http_response& response) {
  return response.status == 0 || response.status == 429 || response.status == 408 || response.status >= 500;
}

double retry_delay(const http_response& response, int attempt, const retry_policy& policy) {
  if (const auto header = response.headers.find("retry-after"); header != response.headers.end()) {
    // Seconds (fractions accepted); an HTTP date or garbage falls back to the backoff.
    char* end = nullptr;
    const double seconds = std::strtod(header->second.c_str(), &end);
    if (end != header->second.c_str() && seconds >= 0) return std::min(seconds, policy.max_delay_s);
  }
  return std::min(policy.base_delay_s * std::pow(2.0, attempt), policy.max_delay_s);
}

http_response post_with_retry(http_client& client, const http_request& request, const retry_policy& policy, const sleeper& sleep,
                              const retry_observer& observer) {
  for (int attempt = 0;; ++attempt) {
    http_response response = client.post(request);
    if (response.status >= 200 && response.status < 300) return response;
    if (!retryable(response))
      throw http_error(detail::located(__FILE__, __LINE__, request.url + ": " + failure_line(response)), response.status);
    if (attempt + 1 >= policy.max_attempts)
      throw http_error(detail::located(__FILE__, __LINE__,
                                       request.url + ": gave up after " + std::to_string(attempt + 1) +
                                           " attempts; last: " + failure_line(response)),
                       response.status);
    const double delay = retry_delay(response, attempt, policy);
    if (observer) observer(response, attempt, delay);
    if (sleep) sleep(delay);
  }
}

} // namespace arbiter::agent
