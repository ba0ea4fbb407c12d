// run.json: what an evaluation's judgement takes besides the files of its folder, written once the
// candidate has finished and read back by `arbiter rejudge`. Writer and reader side by side, so
// that a field added to one is added to the other.
#include "detail/run_record.hpp"

#include "arbiter/common/error.hpp"
#include "arbiter/common/file.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace arbiter::pipeline::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::pair<sandbox::process_end, const char*>, 4> k_ends{{
    {sandbox::process_end::exited, "exited"},
    {sandbox::process_end::signaled, "signaled"},
    {sandbox::process_end::timed_out, "timed_out"},
    {sandbox::process_end::failed_to_start, "failed_to_start"},
}};

const char* end_name(sandbox::process_end end) {
  for (const auto& [value, name] : k_ends)
    if (value == end) return name;
  ARB_THROW(internal_error, fmt::format("unknown process end {}", static_cast<int>(end)));
}

// Every field of sandbox::process_result, by its own name.
nlohmann::json process_json(const sandbox::process_result& p) {
  return {{"end", end_name(p.end)},
          {"exit_code", p.exit_code},
          {"signal", p.signal},
          {"wall_s", p.wall_s},
          {"output_bytes", p.output_bytes},
          {"truncated", p.truncated},
          {"channel_bytes", p.channel_bytes},
          {"channel_truncated", p.channel_truncated},
          {"error", p.error},
          {"timeout_s", p.timeout_s},
          {"gated_s", p.gated_s},
          {"isolation_applied", p.isolation_applied},
          {"isolation_note", p.isolation_note},
          {"isolation_engine", p.isolation_engine},
          {"isolation_layers", p.isolation_layers},
          {"isolation_missing", p.isolation_missing},
          {"limit_exceeded", p.limit_exceeded},
          {"survivors", p.survivors}};
}

/// Reads one key of run.json's objects, naming the file and the key (dotted from the top) when it
/// is missing or of another type.
class record_reader {
 public:
  explicit record_reader(fs::path file, std::string prefix = "") : m_file(std::move(file)), m_prefix(std::move(prefix)) {}

  /// A reader of the object under key.
  record_reader nested(const std::string& key) const { return record_reader(m_file, m_prefix + key + "."); }

  template <typename T>
  T get(const nlohmann::json& doc, const std::string& key) const {
    if (!doc.is_object() || !doc.contains(key)) fail(key, "missing");
    try {
      return doc.at(key).get<T>();
    } catch (const nlohmann::json::exception& e) {
      fail(key, e.what());
    }
  }

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    ARB_THROW(config_error, fmt::format("{}: key '{}{}': {}", m_file.string(), m_prefix, key, why));
  }

 private:
  fs::path m_file;
  std::string m_prefix;
};

sandbox::process_end end_from(const record_reader& in, const std::string& name) {
  for (const auto& [value, known] : k_ends)
    if (name == known) return value;
  in.fail("end", "unknown process end '" + name + "'");
}

sandbox::process_result process_from(const record_reader& in, const nlohmann::json& doc) {
  sandbox::process_result p;
  p.end = end_from(in, in.get<std::string>(doc, "end"));
  p.exit_code = in.get<int>(doc, "exit_code");
  p.signal = in.get<int>(doc, "signal");
  p.wall_s = in.get<double>(doc, "wall_s");
  p.output_bytes = in.get<std::uint64_t>(doc, "output_bytes");
  p.truncated = in.get<bool>(doc, "truncated");
  p.channel_bytes = in.get<std::uint64_t>(doc, "channel_bytes");
  p.channel_truncated = in.get<bool>(doc, "channel_truncated");
  p.error = in.get<std::string>(doc, "error");
  p.timeout_s = in.get<double>(doc, "timeout_s");
  p.gated_s = in.get<double>(doc, "gated_s");
  p.isolation_applied = in.get<bool>(doc, "isolation_applied");
  p.isolation_note = in.get<std::string>(doc, "isolation_note");
  p.isolation_engine = in.get<std::string>(doc, "isolation_engine");
  p.isolation_layers = in.get<std::vector<std::string>>(doc, "isolation_layers");
  p.isolation_missing = in.get<std::string>(doc, "isolation_missing");
  p.limit_exceeded = in.get<std::string>(doc, "limit_exceeded");
  // Recorded since survivors were looked for; a record from before has none to give.
  if (doc.contains("survivors")) p.survivors = in.get<std::vector<std::string>>(doc, "survivors");
  return p;
}

} // namespace

run_record make_run_record(const job_context& ctx, const candidate_run& run, const fs::path& ref_dir) {
  run_record record;
  record.run = run;
  record.run.events = {};
  record.reference_dir = ref_dir;
  record.device = ctx.device;
  for (const auto& shape : ctx.shapes) record.shapes.push_back(shape.name);
  record.num_seeds = ctx.options.num_seeds;
  return record;
}

void write_run_record(const fs::path& eval_dir, const run_record& record) {
  const nlohmann::json doc{{"version", k_run_record_version},
                           {"process", process_json(record.run.process)},
                           {"sandbox", record.run.sandbox},
                           {"facts", record.run.facts},
                           {"probe", {{"status", record.run.probe}, {"key", record.run.probe_key}}},
                           {"reference_dir", record.reference_dir.string()},
                           {"device", record.device},
                           {"shapes", record.shapes},
                           {"num_seeds", record.num_seeds}};
  write_json(eval_dir / k_run_record_file, doc);
}

run_record read_run_record(const fs::path& eval_dir) {
  const fs::path file = eval_dir / k_run_record_file;
  const record_reader in(file);
  const auto doc = nlohmann::json::parse(read_file(file), nullptr, false);
  if (!doc.is_object()) ARB_THROW(config_error, file.string() + ": not a JSON object");
  if (const int version = in.get<int>(doc, "version"); version != k_run_record_version)
    in.fail("version", fmt::format("{}, this build reads {}", version, k_run_record_version));
  run_record record;
  record.run.process = process_from(in.nested("process"), in.get<nlohmann::json>(doc, "process"));
  record.run.sandbox = in.get<nlohmann::json>(doc, "sandbox");
  record.run.facts = in.get<nlohmann::json>(doc, "facts");
  const auto probe = in.get<nlohmann::json>(doc, "probe");
  record.run.probe = in.nested("probe").get<std::string>(probe, "status");
  record.run.probe_key = in.nested("probe").get<std::string>(probe, "key");
  record.reference_dir = in.get<std::string>(doc, "reference_dir");
  record.device = in.get<std::string>(doc, "device");
  record.shapes = in.get<std::vector<std::string>>(doc, "shapes");
  record.num_seeds = in.get<int>(doc, "num_seeds");
  record.run.events = read_events(eval_dir / "events.jsonl");
  // The outside clock's record, as the orchestrator wrote it beside the channel; none: no batch ran.
  record.run.outside = read_outside(eval_dir / "outside.json").value_or(outside_record{});
  return record;
}

} // namespace arbiter::pipeline::detail
