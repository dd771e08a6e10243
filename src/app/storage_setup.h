// tsdb::DbOptions from the --storage.* flags (shared by `llmon agent` and
// `llmon tsdb`).
#pragma once

#include "config/settings.h"
#include "tsdb/db.h"

namespace llmon::app {

tsdb::DbOptions db_options(const config::Settings& s);

}  // namespace llmon::app
