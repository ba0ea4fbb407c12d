// bench_compare: wall time of the judge's comparison of two output bundles (verify::compare_files:
// both files read side by side, every element compared on the machine's cores), for outputs of the
// sizes a large case produces. See bench/verify/README.md.
#include "arbiter/runtime/arbiter_runtime.h"
#include "arbiter/verify/compare.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct options {
  std::filesystem::path dir = "/tmp/arbiter_bench_verify";
  std::vector<std::int64_t> sizes = {1 << 20, 1 << 24, 1 << 28};
  int repeat = 5;
};

options parse(int argc, char** argv) {
  options o;
  for (int arg_idx = 1; arg_idx + 1 < argc; arg_idx += 2) {
    const std::string key = argv[arg_idx];
    const std::string val = argv[arg_idx + 1];
    if (key == "--dir") o.dir = val;
    else if (key == "--repeat") o.repeat = std::stoi(val);
    else if (key == "--max-elements") std::erase_if(o.sizes, [&](std::int64_t n) { return n > std::stoll(val); });
    else throw std::invalid_argument("unknown option " + key + " (expected --dir, --repeat, --max-elements)");
  }
  return o;
}

void write_f32(const std::filesystem::path& file, const std::vector<float>& data) {
  arb_writer* w = nullptr;
  const std::int64_t shape[1] = {static_cast<std::int64_t>(data.size())};
  if (arb_writer_open(file.c_str(), &w) != ARB_OK ||
      arb_writer_add(w, ARB_KIND_TENSOR, ARB_F32, 1, shape, data.data(), data.size() * sizeof(float)) != ARB_OK ||
      arb_writer_close(w) != ARB_OK)
    throw std::runtime_error(file.string() + ": " + arb_last_error());
}

double median_ms(const std::filesystem::path& expected, const std::filesystem::path& actual, int repeat) {
  const arbiter::catalog::tolerance tol{1e-3, 1e-3, arbiter::catalog::tolerance_mode::allclose};
  std::vector<double> ms;
  for (int rep = 0; rep < repeat; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    const auto check = arbiter::verify::compare_files(expected, actual, tol);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (!check.ok) throw std::runtime_error("bench outputs should agree: " + check.reason);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char** argv) try {
  const options o = parse(argc, argv);
  std::filesystem::create_directories(o.dir);
  std::printf("| elements | MiB per file | median ms | GB/s (both files) |\n|---:|---:|---:|---:|\n");
  std::mt19937 gen(7);
  std::normal_distribution<float> normal;
  for (const std::int64_t n : o.sizes) {
    std::vector<float> data(static_cast<std::size_t>(n));
    for (auto& x : data) x = normal(gen);
    write_f32(o.dir / "expected.arbb", data);
    for (auto& x : data) x += 1e-4f; // inside atol
    write_f32(o.dir / "actual.arbb", data);
    const double ms = median_ms(o.dir / "expected.arbb", o.dir / "actual.arbb", o.repeat); // first read warms the page cache
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(float);
    std::printf("| %lld | %.0f | %.1f | %.2f |\n", static_cast<long long>(n), bytes / 2 / (1 << 20), ms, bytes / ms / 1e6);
  }
  std::filesystem::remove_all(o.dir);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_compare: %s\n", e.what());
  return 1;
}
