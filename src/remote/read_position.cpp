#include "remote/read_position.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/atomic_file.h"
#include "base/strings.h"

namespace llmon::remote {
namespace {
constexpr std::string_view kMagic = "llmon-remote-write-position 1";
}

std::string format_position(const ReadPosition& p) {
  std::string out(kMagic);
  out += "\nsegment " + std::to_string(p.segment);
  out += "\noffset " + std::to_string(p.offset);
  out += "\nskip " + std::to_string(p.skip);
  out += "\nmax_sent_ms " + std::to_string(p.max_sent_ms) + "\n";
  return out;
}

Expected<ReadPosition> parse_position(std::string_view text) {
  ReadPosition p;
  int line_no = 0;
  bool seen[4] = {false, false, false, false};
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    auto fail = [&](const std::string& why) { return Status::error("line " + std::to_string(line_no) + ": " + why); };
    if (line_no == 1) {
      if (line != kMagic) return fail("expected \"" + std::string(kMagic) + "\"");
      continue;
    }
    if (line.empty()) continue;
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos) return fail("expected KEY VALUE");
    std::string_view key = line.substr(0, sp);
    auto v = base::parse_i64(line.substr(sp + 1));
    if (!v || *v < 0) return fail("bad number \"" + std::string(line.substr(sp + 1)) + "\"");
    if (key == "segment" && *v <= UINT32_MAX) {
      p.segment = static_cast<uint32_t>(*v);
      seen[0] = true;
    } else if (key == "offset") {
      p.offset = static_cast<uint64_t>(*v);
      seen[1] = true;
    } else if (key == "skip") {
      p.skip = static_cast<uint64_t>(*v);
      seen[2] = true;
    } else if (key == "max_sent_ms") {
      p.max_sent_ms = *v;
      seen[3] = true;
    } else {
      return fail("unknown key \"" + std::string(key) + "\"");
    }
  }
  if (line_no == 0) return Status::error("empty position file");
  for (bool s : seen)
    if (!s) return Status::error("incomplete position (segment, offset, skip and max_sent_ms are required)");
  return p;
}

Expected<std::optional<ReadPosition>> load_position(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::optional<ReadPosition>();
    return Status::error(path + ": " + std::strerror(errno));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  auto p = parse_position(ss.str());
  if (!p) return Status::error(path + ": " + p.error());
  return std::optional<ReadPosition>(*p);
}

Status save_position(const std::string& path, const ReadPosition& p) {
  return base::write_file_atomic(path, format_position(p), 0644);
}

}  // namespace llmon::remote
