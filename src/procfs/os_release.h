// Parser for os-release(5) files (/etc/os-release, /usr/lib/os-release) with
// the rules of the env-file parser node_exporter 1.5 uses (hashicorp/go-envparse):
// blank and '#' lines skipped, KEY=value with optional "export ", values in
// single quotes (literal), double quotes (escapes \" \\ \n \t) or bare (a '#'
// starts a comment). A malformed line is an error naming its line. Pure.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace llmon::procfs {

struct OsRelease {
  std::string name, id, id_like, pretty_name, variant, variant_id, version, version_id, version_codename, build_id,
      image_id, image_version;
};

// `file` names the source in errors ("/etc/os-release:3: unmatched \"").
Expected<OsRelease> parse_os_release(std::string_view text, std::string_view file = "os-release");
// The leading major[.minor] of VERSION_ID as a number ("22.04" -> 22.04,
// "7.9.2009" -> 7.9); 0 when VERSION_ID does not start with a digit.
double os_version_number(std::string_view version_id);

}  // namespace llmon::procfs
