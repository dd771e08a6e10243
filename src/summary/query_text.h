// Human-readable rendering of a Prometheus API answer for `llmon query`:
// reads the JSON envelope (api_json.h's output, or any Prometheus server's)
// and lays the result out as text:
//   vector   one line per series:  up{instance="a:9100", job="node"} 1
//   matrix   per series a header line, then "  <t> <value>" lines
//   scalar   the value; string: the string
// Pure: no I/O; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace llmon::summary {

struct RenderedAnswer {
  bool success = false;
  std::string text;        // success: the table ("" for an empty result)
  std::string error_type;  // failure: "bad_data", ...
  std::string error;       // failure: the message
  std::vector<std::string> warnings;
  std::vector<std::string> infos;
};

// Error when `json` is not a Prometheus API envelope (names what is missing).
Expected<RenderedAnswer> render_answer(std::string_view json);

}  // namespace llmon::summary
