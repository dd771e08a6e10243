// capture_report.h.
#include "trace/capture/capture_report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trace/analysis.h"
#include "trace/load.h"
#include "trace/report_html.h"
#include "trace/report_json.h"
#include "trace/trace_file.h"

namespace llmon::trace::capture {

bool capture_file_name_ok(std::string_view name) {
  if (name.empty() || name.size() > 255 || name[0] == '.') return false;
  if (!name.ends_with(".json.gz") && !name.ends_with(".json")) return false;
  for (char c : name)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return name.find("..") == std::string_view::npos;
}

ReportPage capture_report_page(const std::string& dir, std::string_view name) {
  auto error = [](int status, std::string text) {
    ReportPage p;
    p.status = status;
    p.content_type = "text/plain; charset=utf-8";
    p.body = std::move(text) + "\n";
    return p;
  };
  if (!capture_file_name_ok(name))
    return error(400, "file must be the name of a .json.gz or .json trace in the capture directory, not a path");
  std::string path = dir + "/" + std::string(name);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return error(404, std::string(name) + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return error(404, std::string(name) + ": not a regular file");
  }
  auto src = open_trace_fd(fd, std::string(name));
  if (!src) return error(404, src.error());
  ParseStats stats;
  auto data = load_trace(**src, std::string(name), &stats);
  if (!data) return error(422, data.error());
  FileReport f;
  f.path = std::string(name);
  f.bytes = stats.bytes;
  AnalyzeOptions opts;
  f.report = analyze(*data, opts);
  f.data = std::move(*data);
  ReportPage p;
  p.body = report_html(report_json({f}, opts.flag_share));
  return p;
}

}  // namespace llmon::trace::capture
