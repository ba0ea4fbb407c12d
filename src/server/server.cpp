// `arbiter serve`: httplib stays in this file. Every handler runs inside one wrapper that turns
// exceptions into answers: not_found_error → 404 (a page, or JSON under /api), config_error → 400,
// anything else → 500, both as JSON {"error": ..., "status": ...}.
#include "arbiter/server/server.hpp"

#include "arbiter/common/log.hpp"
#include "detail/assets.hpp"
#include "detail/campaign_data.hpp"
#include "detail/routes.hpp"
#include "detail/store_pool.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <thread>

namespace arbiter::server {

namespace {

using detail::request_args;

constexpr const char* k_json = "application/json; charset=utf-8";
constexpr const char* k_html = "text/html; charset=utf-8";
constexpr std::size_t k_worker_threads = 16; // live progress streams each hold one

void answer_error(httplib::Response& res, int status, const std::string& message, bool html) {
  res.status = status;
  if (html && status == 404) return res.set_content(detail::not_found_page(message, {}), k_html);
  res.set_content(json{{"error", message}, {"status", status}}.dump(), k_json);
}

/// The one wrapper: nothing a handler throws escapes it.
template <typename Handler>
void guarded(const httplib::Request& req, httplib::Response& res, bool html, Handler&& handler) {
  try {
    handler();
  } catch (const not_found_error& e) {
    answer_error(res, 404, e.what(), html);
  } catch (const config_error& e) {
    answer_error(res, 400, e.what(), false);
  } catch (const std::exception& e) {
    ARB_WARN("server", "{} {}: {}", req.method, req.path, e.what());
    answer_error(res, 500, e.what(), false);
  } catch (...) {
    answer_error(res, 500, "unknown error", false);
  }
}

request_args args_of(const httplib::Request& req, const std::string& db_path) {
  request_args args;
  for (std::size_t idx = 1; idx < req.matches.size(); ++idx) args.captures.push_back(req.matches[idx].str());
  for (const auto& [key, value] : req.params) args.query.emplace(key, value);
  args.db_path = db_path;
  return args;
}

void add_page(httplib::Server& http, detail::store_pool& pool, const detail::route& r) {
  const std::string page_pattern = "/" + r.pattern;
  const std::string api_pattern = r.pattern.empty() ? "/api/boards" : "/api/" + r.pattern;
  http.Get(page_pattern, [&pool, &r](const httplib::Request& req, httplib::Response& res) {
    guarded(req, res, true, [&] {
      const request_args args = args_of(req, pool.path());
      auto db = pool.acquire();
      res.set_content(r.render(r.view(*db, args), detail::links{}, args), k_html);
    });
  });
  http.Get(api_pattern, [&pool, &r](const httplib::Request& req, httplib::Response& res) {
    guarded(req, res, false, [&] {
      auto db = pool.acquire();
      res.set_content(r.view(*db, args_of(req, pool.path())).dump(), k_json);
    });
  });
}

/// Server-sent events: "progress" whenever the database changed, "finished" once the campaign is.
void add_events(httplib::Server& http, const serve_options& options) {
  http.Get("/api/campaign/([^/]+)/events", [options](const httplib::Request& req, httplib::Response& res) {
    guarded(req, res, false, [&] {
      const std::int64_t id = detail::parse_id(req.matches[1].str(), "campaign");
      auto db = std::shared_ptr<store::store>(store::open_store(options.db));
      detail::find_campaign(*db, id); // 404 before the stream starts
      auto last_version = std::make_shared<std::int64_t>(-1);
      res.set_header("Cache-Control", "no-cache");
      res.set_chunked_content_provider(
          "text/event-stream", [db, id, last_version, options](std::size_t, httplib::DataSink& sink) {
            if (!sink.is_writable()) return false;
            const std::int64_t version = db->data_version();
            if (version != *last_version) {
              *last_version = version;
              const json progress = progress_view(*db, id);
              const std::string event = fmt::format("event: progress\ndata: {}\n\n", progress.dump());
              if (!sink.write(event.data(), event.size())) return false;
              if (progress["finished"].get<bool>()) {
                const std::string done = "event: finished\ndata: {}\n\n";
                sink.write(done.data(), done.size());
                sink.done();
                return true;
              }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(options.poll_ms));
            return true;
          });
    });
  });
}

void add_assets(httplib::Server& http) {
  http.Get("/assets/([^/]+)", [](const httplib::Request& req, httplib::Response& res) {
    guarded(req, res, false, [&] {
      const auto* asset = detail::find_asset(req.matches[1].str());
      if (!asset) ARB_THROW(not_found_error, "no asset " + req.matches[1].str());
      res.set_header("Cache-Control", "max-age=300");
      res.set_content(std::string(asset->bytes), std::string(detail::content_type(asset->name)).c_str());
    });
  });
}

/// Unknown paths: a 404 page, or JSON under /api.
void add_fallback(httplib::Server& http) {
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    answer_error(res, res.status, fmt::format("no page at {}", req.path), !req.path.starts_with("/api/"));
  });
}

/// SIGINT and SIGTERM stop the server from a thread of its own (nothing runs in a signal handler).
std::thread stop_on_signal(httplib::Server& http) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr); // inherited by every thread started after this
  return std::thread([&http, signals] {
    int received = 0;
    sigwait(&signals, &received);
    http.stop();
  });
}

} // namespace

void serve(const serve_options& options) {
  if (!std::filesystem::exists(options.db))
    ARB_THROW(config_error, "--db: no database at " + options.db + "; run `arbiter eval` first");
  store::open_store(options.db); // fail now, not on the first request, when it cannot be read
  detail::store_pool pool(options.db);
  httplib::Server http;
  http.new_task_queue = [] { return new httplib::ThreadPool(k_worker_threads); };
  for (const auto& r : detail::routes()) add_page(http, pool, r);
  add_events(http, options);
  add_assets(http);
  add_fallback(http);
  const int port = options.port == 0 ? http.bind_to_any_port(options.host)
                                     : (http.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port < 0) ARB_THROW(io_error, fmt::format("cannot listen on {}:{}", options.host, options.port));
  std::thread stopper = stop_on_signal(http);
  std::cout << fmt::format("listening on http://{}:{}", options.host, port) << std::endl;
  http.listen_after_bind();
  if (stopper.joinable()) {
    pthread_kill(stopper.native_handle(), SIGTERM); // wake it if the server stopped on its own
    stopper.join();
  }
}

} // namespace arbiter::server
