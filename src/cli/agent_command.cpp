#include "arbiter/agent/export.hpp"
#include "arbiter/agent/import.hpp"
#include "arbiter/agent/run.hpp"
#include "arbiter/common/log.hpp"
#include "arbiter/doctor/doctor.hpp"
#include "detail/commands.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

namespace arbiter::cli::detail {

namespace {

namespace fs = std::filesystem;

struct agent_args {
  agent::run_options run;
  std::string api = "openai", key_env, max_wall, price, out, suite, python;
  bool no_isolation = false, json = false;
  // import
  std::string from, log, problem, model, solution;
  // export-traces
  std::string export_root, export_out;
};

std::optional<agent::price> parse_optional_price(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return agent::parse_price(text);
}

std::string api_key(const agent_args& args, agent::api_kind api) {
  const std::string var = !args.key_env.empty() ? args.key_env
      : api == agent::api_kind::openai          ? "OPENAI_API_KEY"
                                                : "ANTHROPIC_API_KEY";
  const char* value = std::getenv(var.c_str());
  if (!value || !*value) ARB_WARN("agent", "{} is not set: requests go without credentials", var);
  return value ? value : "";
}

std::string pick_device(const std::string& wanted, const std::string& python) {
  if (!wanted.empty()) return wanted;
  const doctor::environment env = doctor::probe_environment(python);
  return env.gpu.present && env.python.torch_cuda_available ? "cuda" : "cpu";
}

std::filesystem::path self_executable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) ARB_THROW(io_error, "cannot find arbiter's own executable (/proc/self/exe): " + ec.message());
  return self;
}

void print_results(const std::vector<agent::session_result>& results, bool json) {
  if (json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : results)
      rows.push_back({{"problem", r.problem},
                      {"model", r.model},
                      {"stop_reason", to_string(r.reason)},
                      {"turns", r.turns},
                      {"tokens", agent::to_json(r.used)},
                      {"cost_usd", r.cost ? nlohmann::json(*r.cost) : nlohmann::json(nullptr)},
                      {"wall_s", r.wall_s},
                      {"solution", r.has_solution},
                      {"resumed", r.resumed},
                      {"finished_before", r.finished_before},
                      {"error", r.error}});
    std::cout << rows.dump(2) << '\n';
    return;
  }
  std::cout << fmt::format("{:<24} {:<24} {:<13} {:>5} {:>10} {:>9} {:>8}  {}\n", "problem", "model", "stop", "turns", "tokens",
                           "cost", "wall", "kernel.py");
  for (const auto& r : results)
    std::cout << fmt::format("{:<24} {:<24} {:<13} {:>5} {:>10} {:>9} {:>7.0f}s  {}\n", r.problem, r.model, to_string(r.reason),
                             r.turns, r.used.total(), r.cost ? fmt::format("${:.4f}", *r.cost) : "—", r.wall_s,
                             r.has_solution ? "yes" : "no");
}

int run_agents(agent_args& args) {
  agent::run_options options = args.run;
  options.suite_dir = args.suite;
  agent::session_config& s = options.session;
  s.endpoint.api = agent::api_from_string(args.api);
  s.endpoint.api_key = api_key(args, s.endpoint.api);
  s.limits.max_wall_s = args.max_wall.empty() ? 0 : agent::parse_duration(args.max_wall);
  s.prices = parse_optional_price(args.price);
  s.out_root = fs::absolute(args.out);
  s.setup.python = args.python.empty() ? doctor::find_python() : args.python;
  s.setup.device = pick_device(s.setup.device, s.setup.python);
  s.setup.arbiter_exe = self_executable();
  s.tools.python = s.setup.python;
  sandbox::posix_process_runner runner;
  s.tools.isolate = !args.no_isolation && agent::namespaces_available(runner, s.out_root / ".agent");
  if (!args.no_isolation && !s.tools.isolate)
    ARB_WARN("agent", "user namespaces are unavailable: workspaces are separate folders, but bash can read the rest of {}",
             s.out_root.string());
  auto sleep = [](double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); };
  const auto results = agent::run_sessions(
      options, [] { return agent::make_curl_client(); }, runner, sleep);
  print_results(results, args.json);
  for (const auto& r : results)
    if (r.reason == agent::stop_reason::model_error) return static_cast<int>(exit_code::failure);
  return 0;
}

int run_import(const agent_args& args) {
  agent::import_options options;
  options.format = agent::log_format_from_string(args.from);
  options.log = args.log;
  options.problem = args.problem;
  options.model = args.model;
  options.solution = args.solution;
  options.out_root = args.out;
  options.prices = parse_optional_price(args.price);
  std::cout << agent::import_solution(options).dump(2) << '\n';
  return 0;
}

int run_export(const agent_args& args) {
  if (args.export_out.empty() || args.export_out == "-") {
    agent::export_traces(args.export_root, std::cout);
    return 0;
  }
  std::ofstream out(args.export_out, std::ios::trunc);
  if (!out) ARB_THROW(io_error, "cannot write " + args.export_out);
  const std::size_t count = agent::export_traces(args.export_root, out);
  std::cerr << fmt::format("exported {} sessions to {}\n", count, args.export_out);
  return 0;
}

void add_run_options(CLI::App& run, agent_args& a) {
  run.add_option("--model", a.run.session.endpoint.model, "Model name as the endpoint knows it (also the solutions folder)")
      ->required()
      ->envname("ARBITER_AGENT_MODEL");
  run.add_option("--api", a.api, "openai (chat completions) or anthropic (messages)")->required()->envname("ARBITER_AGENT_API");
  run.add_option("--endpoint", a.run.session.endpoint.endpoint, "Base URL, e.g. https://api.openai.com/v1")
      ->required()
      ->envname("ARBITER_AGENT_ENDPOINT");
  run.add_option("--key-env", a.key_env, "Environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)");
  run.add_option("--suite", a.suite, "Suite folder")->required();
  run.add_option("--problems", a.run.problems, "Only these problem ids")->delimiter(',');
  run.add_option("--out", a.out, "Solutions folder to write <problem>/<model>/ into")->required()->envname("ARBITER_SOLUTIONS");
  run.add_option("--max-turns", a.run.session.limits.max_turns, "Model turns per session (0: no limit)")
      ->capture_default_str()
      ->envname("ARBITER_AGENT_MAX_TURNS");
  run.add_option("--max-tokens", a.run.session.limits.max_tokens, "Tokens per session, all kinds (0: no limit)")
      ->envname("ARBITER_AGENT_MAX_TOKENS");
  run.add_option("--max-wall", a.max_wall, "Wall time per session, e.g. 30m, 1h30m")->envname("ARBITER_AGENT_MAX_WALL");
  run.add_option("--max-output-tokens", a.run.session.endpoint.max_output_tokens, "Tokens per reply")->capture_default_str();
  run.add_option("--parallel", a.run.parallel, "Sessions at once")->check(CLI::Range(1, 256))->envname("ARBITER_AGENT_PARALLEL");
  run.add_option("--price", a.price, "USD per million tokens: in=…,out=…,cache_read=…,cache_write=…")
      ->envname("ARBITER_AGENT_PRICE");
  run.add_option("--device", a.run.session.setup.device, "cpu or cuda: the target `check` uses")->envname("ARBITER_DEVICE");
  run.add_option("--python", a.python, "Python interpreter with torch")->envname("ARBITER_PYTHON");
  run.add_option("--bash-timeout", a.run.session.tools.bash_timeout_s, "Seconds per bash command")
      ->capture_default_str()
      ->envname("ARBITER_AGENT_BASH_TIMEOUT");
  run.add_option("--request-timeout", a.run.session.endpoint.request_timeout_s, "Seconds per HTTP request")
      ->capture_default_str();
  run.add_option("--retries", a.run.session.endpoint.retry.max_attempts, "Attempts per request (429, 5xx, timeouts)")
      ->capture_default_str()
      ->envname("ARBITER_AGENT_RETRIES");
  run.add_option("--retry-base", a.run.session.endpoint.retry.base_delay_s, "First backoff delay, seconds (doubles each attempt)")
      ->capture_default_str()
      ->envname("ARBITER_AGENT_RETRY_BASE");
  run.add_flag("--no-isolation", a.no_isolation, "Run bash without its own namespaces");
  run.add_flag("--json", a.json, "JSON output");
}

void add_import_options(CLI::App& import, agent_args& a) {
  import.add_option("--from", a.from, "claude-code (stream-json log) or codex (exec --json log)")->required();
  import.add_option("log", a.log, "The harness's log file")->required();
  import.add_option("--problem", a.problem, "Problem id")->required();
  import.add_option("--model", a.model, "Model name (the solutions folder)")->required();
  import.add_option("--solution", a.solution, "The kernel.py the harness produced")->required();
  import.add_option("--out", a.out, "Solutions folder")->required()->envname("ARBITER_SOLUTIONS");
  import.add_option("--price", a.price, "USD per million tokens, when the log has no cost");
}

} // namespace

command agent_command() {
  return {"agent", "Run models as agents on a suite, import other harnesses' solutions, export traces", [](CLI::App& app) {
            auto args = std::make_shared<agent_args>();
            app.require_subcommand(1);
            auto* run =
                app.add_subcommand("run", "One agent session per problem: bash + write_file + check, with budgets and traces");
            add_run_options(*run, *args);
            auto* import = app.add_subcommand("import", "Import a solution made by Claude Code or Codex, with its token counts");
            add_import_options(*import, *args);
            auto* exporter = app.add_subcommand("export-traces", "Every session's trace as one JSON line (chat messages)");
            exporter->add_option("solutions", args->export_root, "Solutions folder")->required();
            exporter->add_option("--out", args->export_out, "Output file (default: stdout)");
            return [args, run, import] {
              if (run->parsed()) return run_agents(*args);
              if (import->parsed()) return run_import(*args);
              return run_export(*args);
            };
          }};
}

} // namespace arbiter::cli::detail
