// Static rules: each fact kind of python/arbiter_runner/facts.py maps to a catalog pattern and a
// severity, some only under the problem's [rules] (streams, graphs, libraries, forbid, languages).
#include "arbiter/guard/static_rules.hpp"

#include "arbiter/common/json_field.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace arbiter::guard {

namespace {

struct fact {
  std::string kind, what, where, function;
};

/// Fact kinds that break a pattern whatever the rules say.
struct kind_rule {
  std::string_view kind;
  std::string_view pattern;
  severity level;
  std::string_view says;
};

constexpr std::array<kind_rule, 22> k_kind_rules{{
    // A thread is no cheat by itself: a pool joined before forward returns is legal. Work that
    // outlives the call is judged outside the process (the CPU account, the quiet window, the probe).
    {"thread", "T2", severity::info, "starts work on another thread"},
    {"frame", "T7", severity::reject, "inspects the call stack or frames (evaluator-mode detection)"},
    {"env", "T7", severity::reject, "probes the environment"},
    {"env_dump", "H5", severity::reject, "reads the whole environment"},
    {"proc", "H5", severity::reject, "reads /proc"},
    {"introspection", "S8", severity::reject, "walks the interpreter's objects or modules (gc, sys.modules)"},
    {"l2_persist", "T6", severity::reject, "sets a persisting-L2 access policy"},
    {"install", "B3", severity::reject, "installs packages at run time"},
    {"network", "H6", severity::reject, "opens network connections"},
    {"process", "H6", severity::reject, "starts processes"},
    {"native_load", "H7", severity::reject, "loads a native library or module the sources do not build"},
    {"dynamic_code", "H7", severity::reject, "runs code built at run time (exec/eval/compile)"},
    {"ctypes", "H7", severity::flag, "uses ctypes/cffi"},
    // Machine code written into memory at run time is a binary the sources do not show, whatever
    // it then patches (a timer: T4, which the runtime's clock check sees); statically it is H7.
    {"exec_memory", "H7", severity::reject, "makes memory executable (mmap PROT_EXEC, mprotect)"},
    // The probe that witnesses the timed calls shares the process: its library, its CUPTI state and
    // the driver's entry points are reached through the loader (dlsym, dl_iterate_phdr, link_map,
    // the GOT), CUPTI itself or the environment. Evidence beside the probe's own checks, not instead.
    {"native_reach", "H3", severity::reject,
     "reaches into the loader, the driver's entry points, CUPTI or the environment from native code"},
    {"exit", "H2", severity::reject, "exits or signals the process"},
    {"file_write", "H1", severity::reject, "writes outside its own folder"},
    {"file_list", "H4", severity::reject, "lists folders outside its own"},
    {"file_read", "H4", severity::reject, "reads files outside its own folder"},
    {"precision", "S4", severity::info, "computes in a lower precision"},
    // cuDNN's autotuning or determinism switch: configuration a reviewer may ask about, not a timer patch.
    {"backend_setting", "T4", severity::info, "sets a backend switch (not a patch)"},
    {"ptx", "H7", severity::info, "contains inline PTX"},
}};

std::vector<fact> read_facts(const nlohmann::json& doc) {
  std::vector<fact> out;
  if (!doc.is_object() || !doc.contains("facts") || !doc["facts"].is_array()) return out;
  for (const auto& f : doc["facts"])
    if (f.is_object())
      out.push_back({string_or(f, "kind"), string_or(f, "what"), string_or(f, "where"), string_or(f, "function")});
  return out;
}

std::string at(const fact& f) {
  return "'" + f.what + "' at " + f.where + (f.function.empty() || f.function == "<module>" ? "" : " in " + f.function);
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool timing_target(std::string_view what) {
  for (std::string_view needle : {"time", "Event", "synchronize", "elapsed", "perf_counter", "clock", "arb_"})
    if (what.find(needle) != std::string_view::npos) return true;
  return false;
}

void kind_findings(const std::vector<fact>& facts, std::vector<finding>& out) {
  for (const auto& f : facts) {
    for (const auto& rule : k_kind_rules) {
      if (f.kind != rule.kind) continue;
      std::string pattern(rule.pattern);
      // What a read or write points at decides whose files it reaches for.
      if ((f.kind == "file_read" || f.kind == "file_write") &&
          (f.what.find("expected") != std::string::npos || f.what.find("reference") != std::string::npos))
        pattern = "S8";
      out.push_back({pattern, rule.level, std::string(rule.says) + ": " + at(f), "static"});
    }
    if (f.kind == "monkeypatch") {
      const bool harness = f.what.find("arbiter") != std::string::npos;
      const std::string pattern = harness ? "H3" : "T4";
      const std::string says = harness ? "replaces part of the harness"
          : timing_target(f.what)      ? "patches a timer or synchronisation"
                                       : "patches a foreign module";
      out.push_back({pattern, severity::reject, says + ": " + at(f), "static"});
    }
    if (f.kind == "timer_symbol")
      out.push_back({"T4", severity::reject, "names a timing symbol a patch would target: " + at(f), "static"});
    if (f.kind == "harness")
      out.push_back(
          {"H3", severity::reject, "reaches for the harness (its modules, job file, channel or exchange): " + at(f), "static"});
    if (f.kind == "seed" && f.function != "<module>" && f.function != "__init__")
      out.push_back({"S6", severity::reject, "seeds a random generator at call time (predicting inputs): " + at(f), "static"});
  }
}

bool any_kind(const std::vector<fact>& facts, std::string_view kind) {
  return std::any_of(facts.begin(), facts.end(), [&](const fact& f) { return f.kind == kind; });
}

void rule_findings(const std::vector<fact>& facts, const catalog::rules& rules, std::vector<finding>& out) {
  const bool joined = any_kind(facts, "stream_join");
  for (const auto& f : facts) {
    if (f.kind == "stream" && !rules.extra_streams)
      out.push_back({"T1", severity::reject, "creates a stream; [rules] extra_streams = false: " + at(f), "static"});
    else if (f.kind == "stream" && !joined)
      out.push_back({"T1", severity::reject,
                     "creates a stream and never joins it (no wait_stream, wait_event or synchronize): " + at(f), "static"});
    if (f.kind == "graph" && !rules.cuda_graphs)
      out.push_back({"T8", severity::reject, "uses CUDA graphs; [rules] cuda_graphs = false: " + at(f), "static"});
    if (f.kind == "library" && !rules.libraries)
      out.push_back({"B1", severity::reject, "calls a library-backed op; [rules] libraries = false: " + at(f), "static"});
    if (f.kind == "computed_op") // which op runs cannot be read: forbidden where the rules restrict ops
      out.push_back(
          {"B1", !rules.libraries || !rules.forbid.empty() ? severity::flag : severity::info,
           "looks up a torch op by a name computed at run time, which [rules] libraries and forbid cannot check: " + at(f),
           "static"});
  }
}

/// A forbidden call matches by its resolved dotted name, or by its last component called as a
/// method or through another alias (x.softmax for torch.softmax).
bool forbidden(const std::string& call, const std::string& rule) {
  if (call == rule) return true;
  const auto last = rule.substr(rule.rfind('.') + 1);
  const auto call_last = call.substr(call.rfind('.') + 1);
  return call_last == last && (starts_with(call, "?.") || starts_with(call, "torch"));
}

void forbid_findings(const std::vector<fact>& facts, const catalog::rules& rules, std::vector<finding>& out) {
  for (const auto& f : facts)
    if (f.kind == "call")
      for (const auto& rule : rules.forbid)
        if (forbidden(f.what, rule))
          out.push_back({"B1", severity::reject, "calls " + rule + ", which [rules] forbid lists: " + at(f), "static"});
}

void language_findings(const nlohmann::json& doc, const catalog::rules& rules, std::vector<finding>& out) {
  if (rules.languages.empty() || !doc.contains("languages") || !doc["languages"].is_array()) return;
  std::string found;
  for (const auto& language : doc["languages"]) {
    const std::string name = language.is_string() ? language.get<std::string>() : "";
    if (std::find(rules.languages.begin(), rules.languages.end(), name) != rules.languages.end()) return;
    found += (found.empty() ? "" : ", ") + name;
  }
  std::string allowed;
  for (const auto& l : rules.languages) allowed += (allowed.empty() ? "" : ", ") + l;
  out.push_back({"B2", severity::reject, "written in " + found + "; [rules] languages = " + allowed, "static"});
}

} // namespace

// Fail closed: rules that could not run have not cleared anything. A solution that fails anyway
// keeps its own verdict (flag); one that would pass is rejected.
void availability_findings(const nlohmann::json& doc, const std::vector<fact>& facts, std::vector<finding>& out) {
  const auto unavailable = [&](const std::string& why) {
    out.push_back({"H3", severity::flag, "static facts unavailable: " + why, "static"});
  };
  if (!doc.is_object() || !doc.contains("facts") || !doc["facts"].is_array()) {
    const auto it = doc.is_object() ? doc.find("unavailable") : doc.end();
    unavailable(it != doc.end() && it->is_string() ? it->get<std::string>() : "no facts document");
    return;
  }
  for (const auto& f : facts)
    if (f.kind == "syntax_error") unavailable(f.where + " does not parse (" + f.what + ")");
}

std::vector<finding> static_findings(const nlohmann::json& doc, const catalog::rules& rules) {
  const auto facts = read_facts(doc);
  std::vector<finding> out;
  availability_findings(doc, facts, out);
  kind_findings(facts, out);
  rule_findings(facts, rules, out);
  forbid_findings(facts, rules, out);
  language_findings(doc, rules, out);
  return out;
}

} // namespace arbiter::guard
