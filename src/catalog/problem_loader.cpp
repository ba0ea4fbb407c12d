#include "detail/problem_loader.hpp"

#include "arbiter/catalog/toml_reader.hpp"
#include "arbiter/common/device.hpp"
#include "arbiter/common/error.hpp"
#include "arbiter/common/file.hpp"
#include "arbiter/common/hash.hpp"

#include <fmt/format.h>

#include <set>

namespace arbiter::catalog::detail {

namespace fs = std::filesystem;

namespace {

void check_reference(const fs::path& file) {
  const auto text = try_read_file(file);
  if (!text) ARB_THROW(config_error, file.string() + ": cannot read the reference");
  const std::string& body = *text;
  for (const char* needed : {"class Model", "def get_inputs", "def get_init_inputs"})
    if (body.find(needed) == std::string::npos)
      ARB_THROW(config_error, file.string() + ": expected a KernelBench reference defining '" + std::string(needed) + "'");
}

// Above one element in ten thousand an allowance would hide a real fault (a wrong tail, a skipped
// block), not a rounding boundary.
constexpr double k_max_mismatch_fraction = 1e-4;

shape read_shape(const nlohmann::json& table, std::size_t shape_idx, const std::string& where) {
  const std::string prefix = "shapes[" + std::to_string(shape_idx) + "].";
  if (!table.is_object()) ARB_THROW(config_error, where + ": key '" + prefix + "': expected a table");
  const toml_view view(table, where, prefix);
  shape s;
  s.name = view.str("name").value_or("shape" + std::to_string(shape_idx));
  s.devices = view.strings("devices");
  for (const auto& device : s.devices) require_device(device, where + ": key '" + prefix + "devices'");
  for (const auto& [key, value] : table.items())
    if (key != "name" && key != "devices") s.params[key] = value;
  return s;
}

std::vector<shape> read_shapes(const nlohmann::json& spec, const std::string& where) {
  std::vector<shape> shapes;
  const auto it = spec.find("shapes");
  if (it == spec.end()) return {shape{"default", {}, nlohmann::json::object()}};
  if (!it->is_array() || it->empty())
    ARB_THROW(config_error, where + ": key 'shapes': expected a non-empty array of [[shapes]] tables");
  std::set<std::string> names;
  for (std::size_t shape_idx = 0; shape_idx < it->size(); ++shape_idx) {
    shapes.push_back(read_shape((*it)[shape_idx], shape_idx, where));
    if (!names.insert(shapes.back().name).second)
      ARB_THROW(config_error, where + ": key 'shapes': the name '" + shapes.back().name + "' appears twice");
  }
  return shapes;
}

rules read_rules(const toml_view& t) {
  rules r;
  r.languages = t.strings("languages");
  r.forbid = t.strings("forbid");
  r.libraries = t.boolean("libraries").value_or(false);
  r.max_launches = static_cast<int>(t.integer("max_launches").value_or(0));
  r.cuda_graphs = t.boolean("cuda_graphs").value_or(false);
  r.extra_streams = t.boolean("extra_streams").value_or(false);
  return r;
}

void read_baselines(problem& p, const toml_view& t, const std::string& where) {
  p.compile_baseline = t.boolean("compile").value_or(false);
  const auto sota = t.str("sota");
  if (!sota) return;
  p.sota_file = p.dir / *sota;
  if (!fs::is_regular_file(p.sota_file))
    ARB_THROW(config_error,
              where + ": key 'baselines.sota': expected a file in the problem folder, found no " + p.sota_file.string());
}

void apply_spec(problem& p, const nlohmann::json& spec, const std::string& where, const suite_defaults& defaults) {
  const toml_view view(spec, where);
  p.id = view.str("id").value_or(p.id);
  p.title = view.str("title").value_or(p.id);
  p.level = static_cast<int>(view.integer("level").value_or(1));
  if (p.level < 1 || p.level > 4) ARB_THROW(config_error, where + ": key 'level': expected 1, 2, 3 or 4");
  p.tags = view.strings("tags");
  p.dtype = view.str("dtype").value_or("float32");
  p.tol = defaults.tol.value_or(default_tolerance(p.dtype));
  if (auto t = view.table("tolerance")) {
    p.tol = read_tolerance(*t, p.tol, where);
    p.tol_explicit = true;
  }
  p.shapes = read_shapes(spec, where);
  nlohmann::json merged_rules = defaults.rules;
  if (auto r = view.table("rules")) merged_rules.update(r->json());
  p.rule = read_rules(toml_view(merged_rules, where, "rules."));
  if (auto s = view.table("stress")) p.stress_scales = s->numbers("scales");
  if (auto r = view.table("roofline")) p.roofline = r->json();
  if (auto b = view.table("baselines")) read_baselines(p, *b, where);
  p.spec = spec;
}

} // namespace

tolerance read_tolerance(const toml_view& t, tolerance base, const std::string& where) {
  const auto atol = t.number("atol"), rtol = t.number("rtol");
  base.atol = atol.value_or(base.atol);
  base.rtol = rtol.value_or(base.rtol);
  // An atol or rtol asks for a comparison within them, also where the dtype's default is bitwise
  // (integer codes that may move one step); an explicit mode still decides.
  const bool bounds_given = atol.has_value() || rtol.has_value();
  const std::string mode = t.str("mode").value_or(base.mode == tolerance_mode::bitwise && !bounds_given ? "bitwise" : "allclose");
  if (mode == "allclose") base.mode = tolerance_mode::allclose;
  else if (mode == "bitwise") base.mode = tolerance_mode::bitwise;
  else ARB_THROW(config_error, where + ": key 'tolerance.mode': expected allclose or bitwise, found '" + mode + "'");
  if (base.atol < 0 || base.rtol < 0)
    ARB_THROW(config_error, where + ": keys 'tolerance.atol' and 'tolerance.rtol': expected numbers ≥ 0");
  base.mismatch_fraction = t.number("mismatch_fraction").value_or(base.mismatch_fraction);
  if (!(base.mismatch_fraction >= 0 && base.mismatch_fraction <= k_max_mismatch_fraction))
    ARB_THROW(config_error,
              where + ": key 'tolerance.mismatch_fraction': expected a number from 0 to " +
                  fmt::format("{:g}", k_max_mismatch_fraction) + ", found " + fmt::format("{:g}", base.mismatch_fraction));
  return base;
}

problem load_problem_folder(const fs::path& dir, const suite_defaults& defaults) {
  problem p;
  p.id = dir.filename().string();
  p.dir = dir;
  p.reference_file = dir / "reference.py";
  if (!fs::is_regular_file(p.reference_file))
    ARB_THROW(config_error, dir.string() + ": expected a reference.py in the problem folder");
  check_reference(p.reference_file);
  const fs::path toml_file = dir / "problem.toml";
  const nlohmann::json spec = fs::is_regular_file(toml_file) ? read_toml(toml_file) : nlohmann::json::object();
  apply_spec(p, spec, toml_file.string(), defaults);
  p.hash = hash_files(dir, list_files(dir));
  return p;
}

problem load_bare_problem(const fs::path& file, const suite_defaults& defaults) {
  check_reference(file);
  problem p;
  p.id = file.stem().string();
  p.dir = file.parent_path();
  p.reference_file = file;
  apply_spec(p, nlohmann::json::object(), file.string(), defaults);
  p.hash = hash_files(file.parent_path(), {file.filename()});
  return p;
}

} // namespace arbiter::catalog::detail
