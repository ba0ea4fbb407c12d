#pragma once
/// The command that re-runs one evaluation, rebuilt from its campaign's stored config: shown by
/// `arbiter show` and on the evaluation page.
#include "arbiter/store/records.hpp"

#include <string>

namespace arbiter::store {

/// "arbiter eval <suite> --solutions <dir> --problems <p> --models <m> --device <d> --db <db>
/// --campaign <campaign>-rerun"; "" when the campaign's config is not a JSON object.
std::string rerun_command(const campaign_record& campaign, const std::string& problem, const std::string& model,
                          const std::string& db_path);

} // namespace arbiter::store
