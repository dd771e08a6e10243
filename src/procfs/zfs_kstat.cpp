#include "procfs/zfs_kstat.h"

#include <cctype>

#include "base/strings.h"

namespace llmon::procfs {
namespace {

// Walks a named kstat: calls fn(fields, line_no) for each line of >= 3 fields
// after the header. Errors when there is no header.
template <typename Fn>
Status for_each_named(std::string_view text, std::string_view file, Fn&& fn) {
  base::LineIterator lines(text);
  std::string_view line;
  std::vector<std::string_view> f;
  bool started = false;
  while (lines.next(line)) {
    base::split_fields(line, f);
    if (!started) {
      started = f.size() == 3 && f[0] == "name" && f[1] == "type" && f[2] == "data";
      continue;
    }
    if (f.size() < 3) continue;
    if (Status s = fn(f, lines.line_no()); !s) return s;
  }
  if (!started) return Status::error(std::string(file) + ": no \"name type data\" header");
  return Status::ok();
}

Status value_of(std::string_view file, int line_no, std::string_view name, std::string_view text, uint64_t& out) {
  auto v = base::parse_u64(text);
  if (!v)
    return Status::error(
        base::where(file, line_no, std::string(name) + ": not an unsigned integer: \"" + std::string(text) + "\""));
  out = *v;
  return Status::ok();
}

}  // namespace

Expected<std::vector<KstatValue>> parse_zfs_kstat(std::string_view text, std::string_view file) {
  std::vector<KstatValue> out;
  Status s = for_each_named(text, file, [&](const std::vector<std::string_view>& f, int line_no) {
    if (f[1] != "4") return Status::ok();
    KstatValue kv{std::string(f[0]), 0};
    if (Status e = value_of(file, line_no, f[0], f[2], kv.value); !e) return e;
    out.push_back(std::move(kv));
    return Status::ok();
  });
  if (!s) return s;
  return out;
}

Expected<std::vector<KstatValue>> parse_zfs_pool_io(std::string_view text, std::string_view file) {
  std::vector<KstatValue> out;
  std::vector<std::string> names;
  base::LineIterator lines(text);
  std::string_view line;
  std::vector<std::string_view> f;
  while (lines.next(line)) {
    base::split_fields(line, f);
    if (names.empty()) {
      if (f.size() >= 12 && f[0] == "nread") names.assign(f.begin(), f.end());
      continue;
    }
    if (f.size() < names.size())
      return Status::error(
          base::where(file, lines.line_no(),
                      "expected " + std::to_string(names.size()) + " values, got " + std::to_string(f.size())));
    for (size_t i = 0; i < names.size(); ++i) {
      KstatValue kv{names[i], 0};
      if (Status e = value_of(file, lines.line_no(), names[i], f[i], kv.value); !e) return e;
      out.push_back(std::move(kv));
    }
  }
  return out;
}

Expected<ZfsObjset> parse_zfs_objset(std::string_view text, std::string_view file) {
  ZfsObjset out;
  Status s = for_each_named(text, file, [&](const std::vector<std::string_view>& f, int line_no) {
    if (f[0] == "dataset_name") {
      out.dataset = f[2];
      return Status::ok();
    }
    if (f[1] != "4") return Status::ok();
    KstatValue kv{std::string(f[0]), 0};
    if (Status e = value_of(file, line_no, f[0], f[2], kv.value); !e) return e;
    out.values.push_back(std::move(kv));
    return Status::ok();
  });
  if (!s) return s;
  return out;
}

std::string parse_zfs_pool_state(std::string_view text) {
  std::string out(text.substr(0, text.find('\n')));
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace llmon::procfs
