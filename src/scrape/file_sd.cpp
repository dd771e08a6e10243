#include "scrape/file_sd.h"

#include <glob.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "base/file_reader.h"
#include "model/metric.h"

namespace llmon::scrape {
namespace {

Status fail(std::string_view path, const YAML::Node& n, std::string_view msg) {
  std::string out(path);
  const YAML::Mark m = n.Mark();
  if (!m.is_null()) out += ":" + std::to_string(m.line + 1);
  return Status::error(out + ": " + std::string(msg));
}

std::vector<std::string> expand(const std::string& pattern) {
  std::vector<std::string> out;
  if (pattern.find('*') == std::string::npos) {
    out.push_back(pattern);
    return out;
  }
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  return out;
}

}  // namespace

Expected<std::vector<TargetGroup>> parse_file_sd(std::string_view text, std::string_view path) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    std::string out(path);
    if (!e.mark.is_null()) out += ":" + std::to_string(e.mark.line + 1);
    return Status::error(out + ": " + e.msg);
  }
  std::vector<TargetGroup> out;
  if (root.IsNull()) return out;
  if (!root.IsSequence()) return fail(path, root, "expected a list of target groups");
  size_t idx = 0;
  for (const auto& item : root) {
    if (!item.IsMap()) return fail(path, item, "a target group must be a mapping");
    TargetGroup g;
    g.source = std::string(path) + ":" + std::to_string(idx++);
    for (const auto& kv : item) {
      const std::string& key = kv.first.Scalar();
      if (key == "targets") {
        if (kv.second.IsNull()) continue;
        if (!kv.second.IsSequence()) return fail(path, kv.second, "targets: expected a list");
        for (const auto& t : kv.second) {
          if (!t.IsScalar()) return fail(path, t, "targets: expected strings");
          if (t.Scalar().find('/') != std::string::npos)
            return fail(path, t, "\"" + t.Scalar() + "\" is not a valid hostname");
          g.targets.push_back(t.Scalar());
        }
      } else if (key == "labels") {
        if (kv.second.IsNull()) continue;
        if (!kv.second.IsMap()) return fail(path, kv.second, "labels: expected a mapping");
        for (const auto& l : kv.second) {
          if (!model::is_valid_label_name(l.first.Scalar()))
            return fail(path, l.first, "\"" + l.first.Scalar() + "\" is not a valid label name");
          if (!l.second.IsScalar() && !l.second.IsNull()) return fail(path, l.second, "label values must be strings");
          g.labels.push_back({l.first.Scalar(), l.second.IsNull() ? "" : l.second.Scalar()});
        }
      } else {
        return fail(path, kv.first, "unknown field \"" + key + "\" (targets, labels)");
      }
    }
    g.labels.push_back({"__meta_filepath", std::string(path)});
    out.push_back(std::move(g));
  }
  return out;
}

bool FileSd::refresh(int64_t now_ms) {
  bool full = false;
  int64_t shortest = INT64_MAX;
  for (const auto& c : configs_) shortest = std::min(shortest, c.refresh_interval_ms);
  if (last_full_ms_ == INT64_MIN || now_ms - last_full_ms_ >= shortest) {
    full = true;
    last_full_ms_ = now_ms;
  }
  std::set<std::string> present;
  for (const auto& c : configs_)
    for (const auto& pattern : c.files)
      for (auto& p : expand(pattern)) present.insert(std::move(p));
  bool changed = false;
  for (auto it = files_.begin(); it != files_.end();) {
    if (present.count(it->first) == 0) {
      it = files_.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  for (const auto& path : present) {
    struct stat st {};
    File& f = files_[path];
    if (::stat(path.c_str(), &st) != 0) {
      if (f.error.empty() || !f.groups.empty()) changed = true;
      f.groups.clear();
      f.error = path + ": " + std::string(std::strerror(errno));
      f.mtime_ns = f.size = -1;
      continue;
    }
    const int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    if (!full && mtime == f.mtime_ns && st.st_size == f.size) continue;
    f.mtime_ns = mtime;
    f.size = st.st_size;
    auto text = base::read_file(path);
    if (!text) {
      f.error = text.error();
      continue;
    }
    auto groups = parse_file_sd(*text, path);
    if (!groups) {
      f.error = groups.error();  // the previous groups stay
      continue;
    }
    f.error.clear();
    if (groups->size() != f.groups.size()) changed = true;
    for (size_t i = 0; !changed && i < groups->size(); ++i)
      changed = (*groups)[i].targets != f.groups[i].targets || (*groups)[i].labels != f.groups[i].labels;
    f.groups = std::move(*groups);
  }
  return changed;
}

std::vector<TargetGroup> FileSd::groups() const {
  std::vector<TargetGroup> out;
  for (const auto& [path, f] : files_) out.insert(out.end(), f.groups.begin(), f.groups.end());
  return out;
}

std::vector<std::string> FileSd::errors() const {
  std::vector<std::string> out;
  for (const auto& [path, f] : files_)
    if (!f.error.empty()) out.push_back(f.error);
  return out;
}

}  // namespace llmon::scrape
