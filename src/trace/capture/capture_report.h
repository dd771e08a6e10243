// The HTML report of one captured trace, for GET /api/v1/trace/report?file=NAME
// (docs/trace.md#the-dashboard): NAME must be the base name of a .json.gz or
// .json file directly inside the capture directory: no '/', no "..", no
// leading '.', no control bytes; it is opened with O_NOFOLLOW and must be a
// regular file, so neither a path nor a symlink planted in the directory
// leads outside it. The file is analysed as `llmon trace analyze` does
// (default options) and drawn by trace/report_html.h. Thread-safe (no state).
#pragma once

#include <string>
#include <string_view>

namespace llmon::trace::capture {

// True for a name the route accepts (before it looks at the file system).
bool capture_file_name_ok(std::string_view name);

struct ReportPage {
  int status = 200;  // 200, 400 bad name, 404 no such regular file, 422 the trace does not parse
  std::string content_type = "text/html; charset=utf-8";
  std::string body;  // the page, or the error as text
};

ReportPage capture_report_page(const std::string& dir, std::string_view name);

}  // namespace llmon::trace::capture
