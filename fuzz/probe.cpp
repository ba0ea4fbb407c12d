// The CUPTI probe's evidence file (docs/probe.md), written inside the candidate's process and read
// by the judge (src/judge/probe_evidence.cpp): the guard's facts, the details' summary, and the
// device time of the timed samples. The input's "record" member stands in for the shape's timing
// record on the channel, which the cross-checks read beside the evidence.
#include "detail/timing_record.hpp"
#include "detail/probe_evidence.hpp"
#include "fuzz_input.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace arbiter::judge;
  using namespace arbiter::judge::detail;
  const nlohmann::json doc = read_probe(arbiter::fuzz::as_file(data, size));
  if (doc.is_discarded()) return 0;
  runner_events events;
  if (const auto record = doc.find("record"); record != doc.end())
    events.timings.push_back({{"event", "timing"}, {"shape_idx", 0}, {"record", *record}});
  const std::vector<std::string> shapes{"small", "large"};
  arbiter::catalog::rules rules;
  const auto facts = probe_facts(doc, shapes, events, rules, doc);
  (void)probe_summary(doc, shapes, facts);
  const auto record = arbiter::runtime::parse_timing_record(doc.value("record", nlohmann::json::object()));
  for (std::size_t shape_idx = 0; shape_idx < shapes.size(); ++shape_idx)
    (void)sample_spans(doc, shape_idx, record ? dropped_samples(*record) : std::vector<std::int64_t>{});
  return 0;
}
