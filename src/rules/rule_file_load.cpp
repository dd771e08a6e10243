// Reading rule files from disk (rule_file.h): size-limited reads with Go's
// error wording, directory and glob(3) expansion.
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "base/dir_list.h"
#include "rules/rule_file.h"

namespace llmon::rules {

namespace {

// Go's syscall.Errno texts are strerror's with a lower-case first letter.
std::string go_errno(int err) {
  std::string s = std::strerror(err);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

Expected<std::string> read_limited(const std::string& path, size_t limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::error("open " + path + ": " + go_errno(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status::error("stat " + path + ": " + go_errno(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::error("read " + path + ": " + go_errno(EISDIR));
  }
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > limit) {
    ::close(fd);
    return Status::error("file is " + std::to_string(st.st_size) + " bytes, larger than the limit of " +
                         std::to_string(limit) + " bytes");
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return Status::error("read " + path + ": " + go_errno(e));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > limit) {
      ::close(fd);
      return Status::error("file is larger than the limit of " + std::to_string(limit) + " bytes");
    }
  }
  ::close(fd);
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Rule unit-test files live next to rule files and are never rule files.
bool is_test_file(std::string_view name) {
  return ends_with(name, ".test.yml") || ends_with(name, ".test.yaml");
}
bool is_rule_file_name(std::string_view name) {
  return (ends_with(name, ".yml") || ends_with(name, ".yaml")) && !is_test_file(name);
}

std::string join(const std::string& dir, const std::string& name) {
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

}  // namespace

Expected<std::string> read_rule_file_bytes(const std::string& path) {
  return read_limited(path, kMaxRuleFileBytes);
}

RuleFileResult read_rule_file(const std::string& path) {
  auto content = read_limited(path, kMaxRuleFileBytes);
  if (!content) {
    RuleFileResult r;
    r.errors.push_back(path + ": " + content.error());
    return r;
  }
  return parse_rule_file(path, *content);
}

Expected<std::vector<std::string>> expand_rule_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& p) {
    if (seen.insert(p).second) out.push_back(p);
  };
  for (const std::string& p : paths) {
    if (p.find_first_of("*?[") != std::string::npos) {
      glob_t g{};
      int rc = ::glob(p.c_str(), GLOB_ERR, nullptr, &g);
      if (rc == GLOB_NOMATCH) {
        ::globfree(&g);
        continue;
      }
      if (rc != 0) {
        ::globfree(&g);
        return Status::error(p + ": cannot expand the pattern" + (rc == GLOB_ABORTED ? ": read error" : ""));
      }
      std::vector<std::string> matches(g.gl_pathv, g.gl_pathv + g.gl_pathc);
      ::globfree(&g);
      std::sort(matches.begin(), matches.end());
      for (const auto& m : matches) {
        auto slash = m.find_last_of('/');
        std::string base = slash == std::string::npos ? m : m.substr(slash + 1);
        if (is_test_file(base)) continue;
        add(m);
      }
      continue;
    }
    if (base::stat_kind(p) == base::EntryKind::kDir) {
      std::vector<base::DirEntry> entries;
      Status s = base::list_dir(p, entries);
      if (!s) return Status::error(p + ": " + s.message());
      for (const auto& e : entries) {
        if (!is_rule_file_name(e.name)) continue;
        std::string full = join(p, e.name);
        if (base::stat_kind(full) != base::EntryKind::kFile) continue;
        add(full);
      }
      continue;
    }
    add(p);
  }
  return out;
}

RuleFilesResult load_rule_files(const std::vector<std::string>& paths) {
  RuleFilesResult result;
  auto files = expand_rule_paths(paths);
  if (!files) {
    result.errors.push_back(files.error());
    return result;
  }
  result.files = *files;
  for (const std::string& f : result.files) {
    RuleFileResult r = read_rule_file(f);
    for (auto& e : r.errors) result.errors.push_back(std::move(e));
    for (auto& g : r.groups) result.groups.push_back(std::move(g));
  }
  if (!result.errors.empty()) result.groups.clear();
  return result;
}

}  // namespace llmon::rules
