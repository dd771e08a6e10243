// The diagnosis as people read it (text) and as programs read it (JSON,
// schema "llmon.diagnosis.v1", docs/diagnosis.md).
#pragma once

#include <string>

#include "diagnose/diagnose.h"

namespace llmon::diagnose {

std::string format_text(const Diagnosis& d);
std::string format_json(const Diagnosis& d);

// format_json's output (or the `data` of /api/v1/diagnosis) back into a
// Diagnosis, for `llmon diagnose --url` to print it and set its exit code.
Expected<Diagnosis> parse_json(std::string_view text);

}  // namespace llmon::diagnose
