#include "arbiter/common/error.hpp"
#include "arbiter/export/export.hpp"
#include "detail/commands.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>

namespace arbiter::cli::detail {

namespace {

struct export_args {
  std::string db = "arbiter.db";
  std::string format = "json";
  std::string campaign;
  std::string out;
};

struct import_args {
  std::string db = "arbiter.db";
  std::string dir;
  std::string campaign;
};

std::int64_t campaign_id(store::store& db, const export_args& args) {
  if (!args.campaign.empty()) {
    const auto found = db.find_campaign(args.campaign);
    if (!found) ARB_THROW(config_error, "--campaign: no campaign named '" + args.campaign + "' in " + args.db);
    return found->id;
  }
  const auto all = db.campaigns(); // most recent first
  if (all.empty()) ARB_THROW(config_error, args.db + ": no campaign yet; run `arbiter eval` first");
  return all.front().id;
}

int run_export(const export_args& args) {
  auto db = store::open_store(args.db);
  const std::int64_t id = campaign_id(*db, args);
  if (args.format == "kernelarena") {
    if (args.out.empty()) ARB_THROW(config_error, "--format kernelarena writes a folder: give it with --out DIR");
    const std::size_t entries = exporting::write_kernelarena(*db, id, args.out);
    std::cerr << fmt::format("export: {} entries and their solutions written to {}\n", entries, args.out);
    return 0;
  }
  const auto format = args.format == "csv" ? exporting::export_format::csv
      : args.format == "md"                ? exporting::export_format::markdown
                                           : exporting::export_format::json;
  if (args.out.empty()) {
    exporting::export_campaign(*db, id, format, std::cout);
    return 0;
  }
  std::ofstream out(args.out, std::ios::binary);
  exporting::export_campaign(*db, id, format, out);
  if (!out) ARB_THROW(io_error, "cannot write " + args.out);
  return 0;
}

int run_import(const import_args& args) {
  auto db = store::open_store(args.db);
  const auto campaign = exporting::import_kernelarena(*db, args.dir, args.campaign);
  std::cerr << fmt::format("import: campaign {} (suite {}) in {}\n", campaign.name, campaign.suite, args.db);
  return 0;
}

} // namespace

command export_command() {
  return {"export", "Export a campaign as JSON, CSV, Markdown or a KernelArena folder (index.json + solutions/)",
          [](CLI::App& app) {
            auto args = std::make_shared<export_args>();
            add_db_option(app, args->db);
            app.add_option("--format", args->format, "json, csv, md or kernelarena")
                ->check(CLI::IsMember({"json", "csv", "md", "kernelarena"}))
                ->capture_default_str();
            app.add_option("--campaign", args->campaign, "Campaign name (default: the latest)")->envname("ARBITER_CAMPAIGN");
            app.add_option("--out", args->out, "Output file (folder for kernelarena; default: stdout)");
            return [args] { return run_export(*args); };
          }};
}

command import_command() {
  return {"import", "Import a KernelArena export (index.json + solutions/) as a campaign", [](CLI::App& app) {
            auto args = std::make_shared<import_args>();
            app.add_option("dir", args->dir, "Folder holding index.json")->required();
            add_db_option(app, args->db);
            app.add_option("--campaign", args->campaign, "Campaign name (default: the one in index.json)");
            return [args] { return run_import(*args); };
          }};
}

} // namespace arbiter::cli::detail
