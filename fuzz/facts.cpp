// A solution's static facts (facts.json, python -m arbiter_runner facts, docs/guard.md): parsed as
// the pipeline parses the file (src/pipeline/runs.cpp, extract_facts) and read by the guard's
// static rules under permissive and strict [rules].
#include "arbiter/guard/static_rules.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto doc = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  arbiter::catalog::rules loose;
  loose.extra_streams = loose.cuda_graphs = loose.libraries = true;
  arbiter::catalog::rules strict;
  strict.forbid = {"torch.matmul", "softmax"};
  strict.languages = {"python"};
  (void)arbiter::guard::static_findings(doc, loose);
  (void)arbiter::guard::static_findings(doc, strict);
  return 0;
}
