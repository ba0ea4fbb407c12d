#include "arbiter/agent/http.hpp"

#include <gtest/gtest.h>

#include <deque>

using namespace arbiter::agent;

namespace {

class scripted_client final : public http_client {
 public:
  explicit scripted_client(std::deque<http_response> responses) : m_responses(std::move(responses)) {}
  http_response post(const http_request&) override {
    ++m_calls;
    http_response r = m_responses.front();
    m_responses.pop_front();
    return r;
  }
  int calls() const { return m_calls; }

 private:
  std::deque<http_response> m_responses;
  int m_calls = 0;
};

http_response status(long code, std::map<std::string, std::string> headers = {}) {
  return {code, "body", std::move(headers), ""};
}

} // namespace

TEST(retry, backs_off_exponentially_and_honours_retry_after) {
  scripted_client client({status(500), status(429, {{"retry-after", "7"}}), {0, "", {}, "timed out"}, status(200)});
  std::vector<double> waits;
  const auto response = post_with_retry(
      client, {}, {8, 0.5, 60}, [&](double s) { waits.push_back(s); }, nullptr);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(client.calls(), 4);
  EXPECT_EQ(waits, (std::vector<double>{0.5, 7, 2}));
}

TEST(retry, caps_delays) {
  retry_policy policy{8, 1, 10};
  EXPECT_DOUBLE_EQ(retry_delay(status(503), 6, policy), 10);
  EXPECT_DOUBLE_EQ(retry_delay(status(503, {{"retry-after", "3600"}}), 0, policy), 10);
  EXPECT_DOUBLE_EQ(retry_delay(status(503, {{"retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"}}), 1, policy), 2);
}

TEST(retry, client_errors_fail_at_once) {
  scripted_client client({status(401), status(200)});
  try {
    post_with_retry(
        client, {}, {}, [](double) {}, nullptr);
    FAIL() << "expected http_error";
  } catch (const http_error& e) {
    EXPECT_EQ(e.status(), 401);
  }
  EXPECT_EQ(client.calls(), 1);
}

TEST(retry, gives_up_after_max_attempts) {
  scripted_client client({status(502), status(502), status(502)});
  int observed = 0;
  EXPECT_THROW(post_with_retry(
                   client, {}, {3, 0, 0}, [](double) {}, [&](const http_response&, int, double) { ++observed; }),
               http_error);
  EXPECT_EQ(client.calls(), 3);
  EXPECT_EQ(observed, 2);
}
