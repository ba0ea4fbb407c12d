// Server time of the web pages over a large database: fills a database with N evaluations through
// the store interface (unless it exists), then times each page's handler work (the view's reads
// and the HTML rendering, what a request costs the server before the network) over repeats: wall
// time, and the thread's CPU time beside it.
//   bench_server --db /tmp/bench.db [--models 50] [--problems 200] [--repeat 20]
#include "arbiter/store/store.hpp"
#include "detail/routes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

namespace fs = std::filesystem;
using namespace arbiter;

namespace {

struct bench_options {
  std::string db = "/tmp/arbiter_bench.db";
  int models = 50, problems = 200, repeat = 20;
};

bench_options parse(int argc, char** argv) {
  bench_options o;
  for (int idx = 1; idx + 1 < argc; idx += 2) {
    const std::string key = argv[idx], value = argv[idx + 1];
    if (key == "--db") o.db = value;
    else if (key == "--models") o.models = std::stoi(value);
    else if (key == "--problems") o.problems = std::stoi(value);
    else if (key == "--repeat") o.repeat = std::stoi(value);
    else throw std::invalid_argument("unknown option " + key);
  }
  return o;
}

std::string problem_spec(int level) {
  return fmt::format(
      R"({{"level":{},"tags":["{}","bench"],"dtype":"float32","shapes":[{{"name":"small","n":4096}},{{"name":"large","n":16777216}}],"roofline":{{"flops":"2*n","bytes":"8*n"}}}})",
      level, level == 1 ? "elementwise" : "fusion");
}

store::evaluation_result random_result(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0, 1);
  std::lognormal_distribution<double> speed(0.0, 0.8);
  store::evaluation_result r;
  const double roll = unit(rng);
  const verdict v = roll < 0.6 ? verdict::passed
      : roll < 0.8             ? verdict::incorrect
      : roll < 0.9             ? verdict::compile_error
      : roll < 0.97            ? verdict::runtime_error
                               : verdict::rejected;
  r.result = {
      v, v == verdict::passed ? "all cases within tolerance" : "shape large, input set 1: 12 of 16777216 elements outside atol"};
  r.wall_s = 1 + 10 * unit(rng);
  for (const char* shape : {"small", "large"}) {
    const double base = shape[0] == 's' ? 0.01 : 2.0, s = speed(rng);
    r.measurements.push_back({shape, "baseline", "eager", "host", base, base * 0.95, base * 1.1, base, 0.01, 50, std::nullopt,
                              "steady_clock", std::nullopt, 0, std::nullopt, 0});
    if (v == verdict::passed)
      r.measurements.push_back({shape, "candidate", "", "host", base / s, base / s * 0.95, base / s * 1.1, base / s, 0.02, 50, s,
                                "steady_clock", std::nullopt, 0, std::nullopt, 0});
  }
  if (v == verdict::passed) r.speedup = std::sqrt(*r.measurements[1].speedup * *r.measurements[3].speedup);
  return r;
}

void fill(store::store& db, const bench_options& o, const fs::path& solution_dir) {
  std::mt19937_64 rng(42);
  store::hardware_record hw{"bench-hw", "cpu", "", 0, 0, 0, "", "", "2.1", "3.11", "bench", "{}"};
  store::campaign_record wanted{0, "bench", "bench", "cpu", db.upsert_hardware(hw), "{}", {1, 2, 3}, "running", ""};
  const auto campaign = db.open_campaign(wanted);
  std::vector<std::int64_t> problem_ids;
  for (int p = 0; p < o.problems; ++p)
    problem_ids.push_back(db.upsert_problem(
        {"bench", fmt::format("p{:04}", p), fmt::format("h{}", p), "bench problem", 1 + p % 3, problem_spec(1 + p % 3)}));
  db.add_campaign_problems(campaign.id, problem_ids);
  for (int m = 0; m < o.models; ++m) {
    const std::string model = fmt::format("model-{:02}", m);
    const auto model_id = db.upsert_model(model, "bench");
    const std::string meta =
        fmt::format(R"({{"harness":"bench","tokens":{{"input":{},"output":{}}},"cost_usd":0.05}})", 20000 + m, 4000);
    for (int p = 0; p < o.problems; ++p) {
      const auto solution =
          db.upsert_solution(problem_ids[p], model_id, {model, 0, fmt::format("s{}-{}", m, p), solution_dir.string(), meta});
      db.finish_evaluation(db.begin_evaluation(campaign.id, solution), random_result(rng));
    }
  }
  db.set_campaign_status(campaign.id, "finished");
}

/// CPU time of this thread: what a page costs the server apart from waiting for a core, which on a
/// shared machine the wall clock also counts.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

void time_page(store::store& db, const std::string& pattern, const std::vector<std::string>& captures, int repeat) {
  const auto& table = server::detail::routes();
  const auto r = std::find_if(table.begin(), table.end(), [&](const auto& x) { return x.pattern == pattern; });
  server::detail::request_args args{captures, {}, "bench.db"};
  std::vector<double> ms, cpu_ms;
  std::size_t bytes = 0;
  for (int idx = 0; idx < repeat; ++idx) {
    const double cpu_start = thread_cpu_ms();
    const auto start = std::chrono::steady_clock::now();
    bytes = r->render(r->view(db, args), server::detail::links{}, args).size();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    cpu_ms.push_back(thread_cpu_ms() - cpu_start);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu_ms.begin(), cpu_ms.end());
  std::string path = "/" + pattern;
  for (const auto& capture : captures) path.replace(path.find("([^/]+)"), 7, capture);
  std::cout << fmt::format("| {:<32} | {:>8.1f} | {:>8.1f} | {:>8.1f} | {:>10.1f} | {:>9} |\n", path, ms[ms.size() / 2],
                           ms[std::min(ms.size() - 1, ms.size() * 9 / 10)], ms.back(), cpu_ms[cpu_ms.size() / 2], bytes);
}

} // namespace

int main(int argc, char** argv) {
  const bench_options o = parse(argc, argv);
  const bool existed = fs::exists(o.db);
  const fs::path solution_dir = fs::path(o.db).parent_path() / "bench_solution";
  fs::create_directories(solution_dir);
  std::ofstream(solution_dir / "kernel.py")
      << "import torch\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x * 2  # bench\n";
  auto db = store::open_store(o.db);
  if (!existed) {
    const auto start = std::chrono::steady_clock::now();
    fill(*db, o, solution_dir);
    std::cerr << fmt::format("filled {} evaluations in {:.1f} s\n", o.models * o.problems,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const std::string campaign = std::to_string(db->campaigns().front().id);
  for (int idx = 0; idx < 3; ++idx) {
    const auto start = std::chrono::steady_clock::now();
    const auto rows = db->evaluation_rows(db->campaigns().front().id);
    std::cerr << fmt::format("evaluation_rows: {} rows in {:.1f} ms\n", rows.size(),
                             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::cout << fmt::format("{} evaluations, {} repeats; server time in ms (view + render, no network)\n\n",
                           db->evaluation_rows(db->campaigns().front().id).size(), o.repeat);
  std::cout << "| page                             |   median |      p90 |      max | cpu median |     bytes |\n"
               "|---|---:|---:|---:|---:|---:|\n";
  time_page(*db, "", {}, o.repeat);
  time_page(*db, "campaign/([^/]+)", {campaign}, o.repeat);
  time_page(*db, "campaign/([^/]+)/problem/([^/]+)", {campaign, "p0000"}, o.repeat);
  time_page(*db, "campaign/([^/]+)/model/([^/]+)", {campaign, "model-00"}, o.repeat);
  time_page(*db, "evaluation/([^/]+)", {"1"}, o.repeat);
  return EXIT_SUCCESS;
}
