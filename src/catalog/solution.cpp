#include "arbiter/catalog/solution.hpp"

#include "arbiter/catalog/suite.hpp"
#include "arbiter/common/device.hpp"
#include "arbiter/common/error.hpp"
#include "arbiter/common/hash.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace arbiter::catalog {

namespace fs = std::filesystem;

namespace {

bool is_number(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool wanted(const std::vector<std::string>& filter, const std::string& name) {
  return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

nlohmann::json read_meta(const fs::path& file) {
  if (!fs::exists(file)) return nlohmann::json::object();
  std::ifstream in(file);
  try {
    nlohmann::json meta = nlohmann::json::parse(in);
    if (!meta.is_object()) ARB_THROW(config_error, file.string() + ": expected a JSON object");
    return meta;
  } catch (const nlohmann::json::exception& e) {
    ARB_THROW(config_error, file.string() + ": invalid JSON: " + e.what());
  }
}

std::vector<std::string> read_devices(const nlohmann::json& meta, const fs::path& file) {
  const auto it = meta.find("devices");
  if (it == meta.end()) return {};
  if (!it->is_array()) ARB_THROW(config_error, file.string() + ": key 'devices': expected an array of \"cpu\"/\"cuda\"");
  std::vector<std::string> devices;
  for (const auto& d : *it) {
    devices.push_back(require_device(d.is_string() ? d.get<std::string>() : d.dump(), file.string() + ": key 'devices'"));
  }
  return devices;
}

// Sources of one sample: every file of its folder except meta/trace files and numbered samples.
std::vector<fs::path> sample_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& rel : list_files(dir)) {
    const std::string first = rel.begin()->string();
    if (is_number(first) && rel.has_parent_path()) continue;
    const std::string name = rel.filename().string();
    if (name == "meta.json" || name.starts_with("trace")) continue;
    files.push_back(rel);
  }
  return files;
}

solution make_solution(const std::string& problem_id, const std::string& model, int sample, const fs::path& dir) {
  solution s;
  s.problem_id = problem_id;
  s.model = model;
  s.sample = sample;
  s.dir = dir;
  s.entry = dir / "kernel.py";
  s.files = sample_files(dir);
  s.hash = hash_files(dir, s.files);
  s.meta = read_meta(dir / "meta.json");
  s.devices = read_devices(s.meta, dir / "meta.json");
  return s;
}

void load_model(const fs::path& model_dir, const std::string& problem_id, std::vector<solution>& out,
                std::vector<std::string>* ignored) {
  const std::string model = model_dir.filename().string();
  if (fs::exists(model_dir / "kernel.py")) out.push_back(make_solution(problem_id, model, 0, model_dir));
  else if (ignored) ignored->push_back(model_dir.string() + ": no kernel.py");
  for (const auto& entry : fs::directory_iterator(model_dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || !is_number(name)) continue;
    if (fs::exists(entry.path() / "kernel.py")) out.push_back(make_solution(problem_id, model, std::stoi(name), entry.path()));
    else if (ignored) ignored->push_back(entry.path().string() + ": no kernel.py");
  }
}

} // namespace

std::string solution::label() const { return problem_id + "/" + model + (sample == 0 ? "" : "#" + std::to_string(sample)); }

bool solution::runs_on(const std::string& device) const {
  return devices.empty() || std::find(devices.begin(), devices.end(), device) != devices.end();
}

std::vector<solution> load_solutions(const fs::path& root, const suite& s, const solution_filter& filter,
                                     std::vector<std::string>* ignored) {
  if (!fs::is_directory(root))
    ARB_THROW(config_error, root.string() + ": expected a solutions folder (<problem>/<model>/kernel.py)");
  std::vector<solution> out;
  for (const auto& problem_entry : fs::directory_iterator(root)) {
    if (!problem_entry.is_directory()) continue;
    const std::string problem_id = problem_entry.path().filename().string();
    if (problem_id.starts_with(".")) continue;
    if (s.find(problem_id) == nullptr) {
      if (ignored) ignored->push_back(problem_entry.path().string() + ": no problem '" + problem_id + "' in suite " + s.name);
      continue;
    }
    if (!wanted(filter.problems, problem_id)) continue;
    for (const auto& model_entry : fs::directory_iterator(problem_entry.path()))
      if (model_entry.is_directory() && wanted(filter.models, model_entry.path().filename().string()))
        load_model(model_entry.path(), problem_id, out, ignored);
  }
  std::sort(out.begin(), out.end(), [](const solution& a, const solution& b) {
    return std::tie(a.problem_id, a.model, a.sample) < std::tie(b.problem_id, b.model, b.sample);
  });
  return out;
}

} // namespace arbiter::catalog
