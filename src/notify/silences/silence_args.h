// Arguments of `llmon alerts silence add`, as amtool 0.25's `silence add`:
//   [flags] <matcher>...
// Each positional argument is one matcher (`name=value`, `name=~"re"`, ...);
// when the first one is not a matcher it means `alertname=<arg>`. Flags:
// -a/--author (default: the caller's user name), -c/--comment, -d/--duration
// (default 1h, Prometheus duration syntax), --start and --end (RFC 3339; --end
// wins over --duration), --require-comment (default on) and
// --no-require-comment. Flag values as `--flag=v`, `--flag v`, `-f v` or `-fv`;
// `--` ends the flags. Pure: time and the default author come from the caller;
// no I/O. The result is a silence without an id, ready for Silences::set or a
// POST /api/v2/silences body.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "notify/silences/silences.h"

namespace llmon::notify {

Expected<Silence> parse_silence_add_args(const std::vector<std::string>& args, int64_t now_ms,
                                         std::string_view default_author);

}  // namespace llmon::notify
