// libcurl behind http_client: one easy handle per request (no shared state between threads).
#include "arbiter/agent/http.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace arbiter::agent {

namespace {

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  const std::string line(data, size * count);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r\n") + 1);
    (*static_cast<std::map<std::string, std::string>*>(user))[name] = value;
  }
  return size * count;
}

struct curl_handle {
  CURL* easy = curl_easy_init();
  curl_slist* headers = nullptr;
  ~curl_handle() {
    curl_slist_free_all(headers);
    if (easy) curl_easy_cleanup(easy);
  }
};

class curl_client final : public http_client {
 public:
  curl_client() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  http_response post(const http_request& request) override {
    http_response response;
    curl_handle handle;
    if (!handle.easy) {
      response.transport_error = "curl_easy_init failed";
      return response;
    }
    for (const auto& [name, value] : request.headers)
      handle.headers = curl_slist_append(handle.headers, (name + ": " + value).c_str());
    char error_text[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(handle.easy, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(handle.easy, CURLOPT_HTTPHEADER, handle.headers);
    curl_easy_setopt(handle.easy, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(handle.easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(handle.easy, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
    curl_easy_setopt(handle.easy, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
    curl_easy_setopt(handle.easy, CURLOPT_NOSIGNAL, 1L); // threads: no SIGALRM for DNS timeouts
    curl_easy_setopt(handle.easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(handle.easy, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(handle.easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(handle.easy, CURLOPT_HEADERDATA, &response.headers);
    curl_easy_setopt(handle.easy, CURLOPT_ERRORBUFFER, error_text);
    const CURLcode code = curl_easy_perform(handle.easy);
    if (code != CURLE_OK) {
      response.status = 0;
      response.transport_error =
          std::string(curl_easy_strerror(code)) + (error_text[0] ? std::string(" (") + error_text + ")" : "");
      return response;
    }
    curl_easy_getinfo(handle.easy, CURLINFO_RESPONSE_CODE, &response.status);
    return response;
  }
};

} // namespace

std::unique_ptr<http_client> make_curl_client() { return std::make_unique<curl_client>(); }

} // namespace arbiter::agent
