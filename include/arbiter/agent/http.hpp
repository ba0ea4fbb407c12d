#pragma once
/// One HTTP POST, behind an interface so that the agent loop is tested without a network, and the
/// retry policy the loop wraps around it: exponential backoff on 429, 5xx and transport failures
/// (timeouts, refused connections), honouring Retry-After.
#include "arbiter/common/error.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace arbiter::agent {

/// The endpoint failed for good: a status that retrying cannot fix, or retries exhausted.
class http_error : public error {
 public:
  http_error(const std::string& what, long status) : error(what), m_status(status) {}
  long status() const { return m_status; } ///< 0 for a transport failure
 private:
  long m_status;
};

struct http_request {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double timeout_s = 600;
};

struct http_response {
  long status = 0; ///< 0 when no response came (transport_error says why)
  std::string body;
  std::map<std::string, std::string> headers; ///< names lower-cased
  std::string transport_error;
};

class http_client {
 public:
  virtual ~http_client() = default;
  /// Never throws for what the server or network does: that is in the response.
  virtual http_response post(const http_request& request) = 0;
};

/// libcurl (HTTPS through OpenSSL). Safe to use from several threads, one request per call.
std::unique_ptr<http_client> make_curl_client();

struct retry_policy {
  int max_attempts = 8;
  double base_delay_s = 1; ///< attempt n waits base × 2^n, capped
  double max_delay_s = 60; ///< also caps Retry-After
};

/// 429, 5xx and transport failures are worth another attempt; other statuses are not.
bool retryable(const http_response& response);

/// Seconds to wait before the next attempt (attempt counts from 0): Retry-After in seconds when the
/// response has it, else the exponential backoff; both capped by max_delay_s.
double retry_delay(const http_response& response, int attempt, const retry_policy& policy);

/// Called before each wait: the failed response, the attempt that failed (from 0), the delay.
using retry_observer = std::function<void(const http_response&, int, double)>;
using sleeper = std::function<void(double)>;

/// Posts until a 2xx arrives. Throws http_error (with the status and a shortened body) for a
/// non-retryable status or when max_attempts have failed.
http_response post_with_retry(http_client& client, const http_request& request, const retry_policy& policy, const sleeper& sleep,
                              const retry_observer& observer);

} // namespace arbiter::agent
