#include "arbiter/agent/session.hpp"

#include "arbiter/agent/trace.hpp"
#include "arbiter/common/log.hpp"

#include <chrono>
#include <fstream>

namespace arbiter::agent {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

class session {
 public:
  session(const session_config& config, const catalog::problem& problem, http_client& client, sandbox::process_runner& runner,
          const sleeper& sleep)
      : m_config(config), m_problem(problem), m_client(client), m_runner(runner), m_sleep(sleep),
        m_paths(paths_for(config.out_root, problem.id, config.endpoint.model)), m_state(read_trace(m_paths.trace())),
        m_started(std::chrono::steady_clock::now()) {
    m_result.problem = problem.id;
    m_result.model = config.endpoint.model;
    m_result.resumed = m_state.started;
  }

  session_result run() {
    prepare_workspace(m_paths, m_problem, m_config.setup);
    m_trace.emplace(m_paths.trace());
    if (!m_state.started) begin();
    else if (!m_state.stopped) record({{"type", "resume"}, {"turns", m_state.turns.size()}});
    m_result.reason = m_state.stopped ? *m_state.stopped : loop();
    if (!m_state.stopped)
      record({{"type", "stop"},
              {"reason", to_string(m_result.reason)},
              {"turns", m_state.turns.size()},
              {"usage", to_json(m_state.used)},
              {"error", m_result.error}});
    finish();
    return m_result;
  }

 private:
  double elapsed() const {
    return m_state.elapsed_s + std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
  }

  void record(json value) {
    value["elapsed_s"] = elapsed();
    m_trace->append(std::move(value));
  }

  void begin() {
    const std::string statement = problem_statement(m_problem, m_config.setup.device);
    record({{"type", "session"},
            {"harness", "arbiter-basic"},
            {"model", m_config.endpoint.model},
            {"api", to_string(m_config.endpoint.api)},
            {"endpoint", m_config.endpoint.endpoint},
            {"problem", m_problem.id},
            {"device", m_config.setup.device},
            {"isolation", m_config.tools.isolate ? "namespaces" : "folders"},
            {"budget",
             {{"max_turns", m_config.limits.max_turns},
              {"max_tokens", m_config.limits.max_tokens},
              {"max_wall_s", m_config.limits.max_wall_s}}}});
    m_state.system = system_prompt();
    record({{"type", "system"}, {"content", m_state.system}});
    m_state.messages.push_back({role::user, statement, {}, "", "", false});
    record({{"type", "user"}, {"content", statement}});
  }

  void run_calls(const std::vector<tool_call>& calls, int turn) {
    for (const auto& call : calls) {
      const tool_result result = run_tool(call, m_paths, m_config.tools, m_runner);
      m_state.messages.push_back({role::tool, result.content, {}, call.id, call.name, result.is_error});
      record({{"type", "tool_result"},
              {"turn", turn},
              {"tool_call_id", call.id},
              {"name", call.name},
              {"content", result.content},
              {"is_error", result.is_error},
              {"wall_s", result.wall_s}});
    }
  }

  std::optional<model_reply> ask_model() {
    const model_endpoint& e = m_config.endpoint;
    chat_request request{e.model, e.max_output_tokens, m_state.system, m_state.messages, tool_specs()};
    http_request http = encode_request(e.api, e.endpoint, e.api_key, request);
    http.timeout_s = e.request_timeout_s;
    auto on_retry = [this, &e](const http_response& response, int attempt, double delay) {
      record({{"type", "retry"},
              {"attempt", attempt + 1},
              {"status", response.status},
              {"error", response.status == 0 ? response.transport_error : response.body.substr(0, 300)},
              {"delay_s", delay}});
      ARB_WARN("agent", "{}/{}: HTTP {} (attempt {}), retrying in {:.1f} s", m_problem.id, e.model, response.status, attempt + 1,
               delay);
    };
    try {
      const http_response response = post_with_retry(m_client, http, e.retry, m_sleep, on_retry);
      return decode_reply(e.api, response.body);
    } catch (const http_error& err) {
      m_result.error = err.what();
    } catch (const protocol_error& err) {
      m_result.error = err.what();
    }
    return std::nullopt;
  }

  stop_reason loop() {
    if (!m_state.pending.empty()) run_calls(m_state.pending, static_cast<int>(m_state.turns.size()));
    for (;;) {
      if (auto stop = budget_exhausted(m_config.limits, {static_cast<int>(m_state.turns.size()), m_state.used, elapsed()}))
        return *stop;
      const auto asked = std::chrono::steady_clock::now();
      std::optional<model_reply> reply = ask_model();
      if (!reply) return stop_reason::model_error;
      const int turn = static_cast<int>(m_state.turns.size()) + 1;
      const double latency = std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
      json calls = json::array();
      for (const auto& call : reply->reply.calls) calls.push_back(to_json(call));
      record({{"type", "assistant"},
              {"turn", turn},
              {"content", reply->reply.text},
              {"tool_calls", calls},
              {"usage", to_json(reply->usage)},
              {"finish", reply->finish},
              {"latency_s", latency}});
      m_state.turns.push_back({turn, reply->usage, latency, reply->finish});
      m_state.used += reply->usage;
      m_state.messages.push_back(reply->reply);
      if (reply->reply.calls.empty()) return stop_reason::final_answer;
      run_calls(reply->reply.calls, turn);
    }
  }

  void finish() {
    const fs::path kernel = m_paths.workspace / "kernel.py";
    m_result.has_solution = fs::is_regular_file(kernel);
    if (m_result.has_solution) fs::copy_file(kernel, m_paths.solution_dir / "kernel.py", fs::copy_options::overwrite_existing);
    m_result.turns = static_cast<int>(m_state.turns.size());
    m_result.used = m_state.used;
    m_result.wall_s = elapsed();
    if (m_config.prices) m_result.cost = cost_usd(m_state.used, *m_config.prices);
    std::vector<json> per_turn;
    for (const auto& turn : m_state.turns) {
      json entry = to_json(turn.usage);
      entry["turn"] = turn.turn;
      entry["latency_s"] = turn.latency_s;
      if (m_config.prices) entry["cost_usd"] = cost_usd(turn.usage, *m_config.prices);
      per_turn.push_back(entry);
    }
    write_json_atomic(m_paths.meta(), session_meta(m_config, m_problem.id, m_result, per_turn));
  }

  const session_config& m_config;
  const catalog::problem& m_problem;
  http_client& m_client;
  sandbox::process_runner& m_runner;
  const sleeper& m_sleep;
  session_paths m_paths;
  trace_state m_state;
  std::chrono::steady_clock::time_point m_started;
  std::optional<trace_writer> m_trace;
  session_result m_result;
};

// A finished session is recognised by its meta.json; its numbers are reported, nothing runs.
std::optional<session_result> finished_before(const session_config& config, const std::string& problem_id) {
  const session_paths paths = paths_for(config.out_root, problem_id, config.endpoint.model);
  std::ifstream in(paths.meta());
  if (!in) return std::nullopt;
  const json meta = json::parse(in, nullptr, false);
  if (meta.is_discarded() || !meta.is_object() || meta.value("harness", "") != "arbiter-basic") return std::nullopt;
  const auto reason = stop_reason_from_string(meta.value("stop_reason", ""));
  if (!reason) return std::nullopt;
  session_result result;
  result.problem = problem_id;
  result.model = config.endpoint.model;
  result.reason = *reason;
  result.turns = meta.value("turns", 0);
  result.used = usage_from_json(meta.value("tokens", json::object()));
  result.wall_s = meta.value("wall_s", 0.0);
  if (meta.contains("cost_usd") && meta["cost_usd"].is_number()) result.cost = meta["cost_usd"].get<double>();
  result.finished_before = true;
  result.has_solution = fs::is_regular_file(paths.solution_dir / "kernel.py");
  return result;
}

} // namespace

std::string system_prompt() {
  return "You are writing a fast GPU kernel as a drop-in replacement for a PyTorch reference. PROBLEM.md in your "
         "working folder states the task, the rules and how to check your work. Use the bash tool to run commands "
         "(including `check`) and the write_file tool to write files. When kernel.py is as fast as you can make it "
         "and correct, reply without calling a tool.";
}

session_result run_session(const session_config& config, const catalog::problem& problem, http_client& client,
                           sandbox::process_runner& runner, const sleeper& sleep) {
  if (auto done = finished_before(config, problem.id)) return *done;
  try {
    return session(config, problem, client, runner, sleep).run();
  } catch (const error&) {
    rethrow_with_context("while running the agent session " + problem.id + "/" + config.endpoint.model);
  }
}

} // namespace arbiter::agent
