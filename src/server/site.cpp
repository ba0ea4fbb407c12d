// `arbiter site`: every page of the server written as a static folder, linked relatively.
#include "arbiter/server/server.hpp"

#include "detail/assets.hpp"
#include "detail/routes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace arbiter::server {

namespace {

namespace fs = std::filesystem;

class site_writer {
 public:
  site_writer(store::store& db, std::string db_path, fs::path dir)
      : m_db(db), m_db_path(std::move(db_path)), m_dir(std::move(dir)) {}

  /// Renders the route with this pattern for these captures into <dir>/<path>/index.html.
  void write(const std::string& pattern, const std::vector<std::string>& captures, const std::string& path) {
    const auto& table = detail::routes();
    const auto r = std::find_if(table.begin(), table.end(), [&](const detail::route& x) { return x.pattern == pattern; });
    ARB_ASSERT(r != table.end());
    detail::request_args args{captures, {}, m_db_path};
    const std::size_t depth = path.empty() ? 0 : static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')) + 1;
    detail::links l;
    l.live = false;
    l.suffix = "/index.html";
    l.root.clear();
    for (std::size_t level = 0; level < depth; ++level) l.root += "../";
    save(m_dir / path / "index.html", r->render(r->view(m_db, args), l, args));
    ++m_pages;
  }
  void write_assets() {
    for (const auto& asset : detail::assets()) save(m_dir / "assets" / std::string(asset.name), std::string(asset.bytes));
  }
  std::size_t pages() const { return m_pages; }

 private:
  static void save(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out << text;
    if (!out) ARB_THROW(io_error, "cannot write " + file.string());
  }

  store::store& m_db;
  std::string m_db_path;
  fs::path m_dir;
  std::size_t m_pages = 0;
};

void write_campaign(site_writer& site, store::store& db, const store::campaign_record& c) {
  const std::string id = std::to_string(c.id);
  site.write("campaign/([^/]+)", {id}, detail::campaign_path(c.id));
  std::vector<std::string> models, problems;
  for (const auto& e : db.evaluation_rows(c.id)) {
    if (std::find(models.begin(), models.end(), e.model) == models.end()) models.push_back(e.model);
    site.write("evaluation/([^/]+)", {std::to_string(e.id)}, detail::evaluation_path(e.id));
  }
  for (const auto& m : models) site.write("campaign/([^/]+)/model/([^/]+)", {id, m}, detail::model_path(c.id, m));
  for (const auto& p : db.campaign_problems(c.id))
    site.write("campaign/([^/]+)/problem/([^/]+)", {id, p.record.key}, detail::problem_path(c.id, p.record.key));
}

} // namespace

std::size_t write_site(const std::string& db_path, const std::filesystem::path& dir) {
  if (!fs::exists(db_path)) ARB_THROW(config_error, "--db: no database at " + db_path);
  auto db = store::open_store(db_path);
  site_writer site(*db, db_path, dir);
  site.write_assets();
  site.write("", {}, "");
  site.write("campaigns", {}, "campaigns");
  site.write("hardware", {}, "hardware");
  for (const auto& c : db->campaigns()) write_campaign(site, *db, c);
  return site.pages();
}

} // namespace arbiter::server
