// textfile collector (node_exporter 1.5 textfile.go): the metric families of
// the *.prom files in --collector.textfile.directory (default empty: nothing
// read, node_textfile_scrape_error 0, as upstream's default), read every
// cycle with exposition's text parser, plus node_textfile_mtime_seconds{file}
// per file read and node_textfile_scrape_error (1 when the directory or a
// file could not be read or parsed). What node_exporter does, done here:
// - a file that fails to parse (error naming it and the line), or that has
//   client-side timestamps, is skipped whole and sets scrape_error 1; the
//   collector itself succeeds;
// - a family without HELP gets "Metric read from FILE[, FILE...]" (every
//   file that has a family of that name);
// - within one file, the series of a family are given the union of the
//   family's label names (absent ones as "");
// - across files (in name order), the first family of a name fixes its help
//   and type: a later file's family of that name with another help or type is
//   dropped, as is a later series with the same labels (client_golang's
//   registry refuses them; node_exporter logs the gather error);
// - summary and histogram families are skipped with a warning (llmon's model
//   has no such types; node_exporter exposes them).
// Errors are logged when they first appear and when they change, not every
// cycle.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/dir_list.h"
#include "base/file_reader.h"
#include "collector/builtin.h"
#include "collector/options.h"
#include "exposition/text_families.h"

namespace llmon::collector {
namespace {

using exposition::TextFamily;
using exposition::TextType;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Go's filepath.Join for a directory and a plain file name (trailing slashes
// of the directory dropped).
std::string join_path(std::string_view dir, std::string_view name) {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

model::MetricType model_type(TextType t) {
  switch (t) {
    case TextType::kCounter:
      return model::MetricType::kCounter;
    case TextType::kGauge:
      return model::MetricType::kGauge;
    default:
      return model::MetricType::kUntyped;
  }
}

struct ParsedFile {
  std::string path;
  std::vector<TextFamily> families;
  double mtime = 0;
};

class TextfileCollector final : public Collector {
 public:
  explicit TextfileCollector(const CollectorContext& ctx)
      : dir_(ctx.option(flag::kCollectorTextfileDirectory)), log_(ctx.log ? ctx.log : &fallback_log_) {}

  Status collect(model::SnapshotBuilder& out) override {
    bool errored = false;
    files_.clear();
    seen_errors_.swap(last_errors_);
    last_errors_.clear();
    if (!dir_.empty()) read_directory(errored);
    seen_errors_.clear();
    emit_families(out);
    auto mtime = out.family("node_textfile_mtime_seconds", "Unixtime mtime of textfiles successfully read.",
                            model::MetricType::kGauge, {"file"});
    for (const auto& f : files_) mtime.add({f.path}, f.mtime);
    out.family("node_textfile_scrape_error", "1 if there was an error opening or reading a file, 0 otherwise",
               model::MetricType::kGauge)
        .add(errored ? 1 : 0);
    return Status::ok();
  }

 private:
  void read_directory(bool& errored) {
    if (Status s = base::list_dir(dir_, entries_); !s) {
      errored = true;
      report(dir_, "failed to read textfile collector directory", s.message());
      return;
    }
    for (const auto& e : entries_) {
      if (!ends_with(e.name, ".prom")) continue;
      std::string path = join_path(dir_, e.name);
      if (Status s = read_one(path); !s) {
        errored = true;
        report(path, "failed to collect textfile data", s.message());
      }
    }
  }

  Status read_one(const std::string& path) {
    if (Status s = base::read_file(path, text_); !s) return s;
    auto families = exposition::parse_text_families(text_, path);
    if (!families) return families.status();
    for (const auto& f : *families)
      for (const auto& s : f.samples)
        if (s.has_timestamp)
          return Status::error("textfile " + path +
                               " contains unsupported client-side timestamps, skipping entire file");
    // Stat only once parsed, so that a failure does not look fresh.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Status::error("stat " + path + ": " + std::strerror(errno));
    files_.push_back(ParsedFile{path, std::move(*families), static_cast<double>(st.st_mtim.tv_sec)});
    return Status::ok();
  }

  // Logs an error the first cycle it appears (or when its text changes).
  void report(const std::string& where, std::string_view msg, const std::string& err) {
    auto it = seen_errors_.find(where);
    if (it == seen_errors_.end() || it->second != err) log_->error(msg, {{"path", where}, {"err", err}});
    last_errors_[where] = err;
  }

  struct Fixed {
    std::string help;
    TextType type;
    std::set<std::vector<std::pair<std::string, std::string>>> label_sets;
  };

  void emit_families(model::SnapshotBuilder& out) {
    std::map<std::string, std::vector<std::string>, std::less<>> files_of;
    for (const auto& f : files_)
      for (const auto& fam : f.families) files_of[fam.name].push_back(f.path);
    std::map<std::string, Fixed, std::less<>> fixed;
    std::vector<std::string> label_names;
    std::vector<std::string> values;
    for (const auto& f : files_) {
      for (const auto& fam : f.families) {
        if (fam.type == TextType::kSummary || fam.type == TextType::kHistogram) {
          warn_once(fam.name, f.path);
          continue;
        }
        std::string help = fam.help ? *fam.help : default_help(files_of[fam.name]);
        auto [it, fresh] = fixed.try_emplace(fam.name, Fixed{help, fam.type, {}});
        if (!fresh && (it->second.help != help || it->second.type != fam.type)) continue;
        label_names.clear();
        for (const auto& s : fam.samples)
          for (const auto& l : s.labels) label_names.push_back(l.first);
        std::sort(label_names.begin(), label_names.end());
        label_names.erase(std::unique(label_names.begin(), label_names.end()), label_names.end());
        auto w = out.family(fam.name, help, model_type(fam.type), label_names);
        for (const auto& s : fam.samples) {
          values.assign(label_names.size(), std::string());
          for (const auto& l : s.labels)
            values[std::lower_bound(label_names.begin(), label_names.end(), l.first) - label_names.begin()] = l.second;
          std::vector<std::pair<std::string, std::string>> key;
          for (size_t i = 0; i < label_names.size(); ++i) key.emplace_back(label_names[i], values[i]);
          if (!it->second.label_sets.insert(std::move(key)).second) continue;  // "collected before"
          w.add(values, s.value);
        }
      }
    }
  }

  static std::string default_help(const std::vector<std::string>& files) {
    std::string help = "Metric read from ";
    for (size_t i = 0; i < files.size(); ++i) help += (i ? ", " : "") + files[i];
    return help;
  }

  void warn_once(const std::string& family, const std::string& path) {
    if (!warned_.insert(path + "\n" + family).second) return;
    log_->warn("textfile: summary and histogram families are not supported; skipped",
               {{"file", path}, {"metric", family}});
  }

  std::string dir_;
  base::Logger* log_;
  base::Logger fallback_log_;
  std::vector<base::DirEntry> entries_;
  std::string text_;
  std::vector<ParsedFile> files_;
  std::map<std::string, std::string> seen_errors_, last_errors_;  // path -> error, last cycle / this cycle
  std::set<std::string> warned_;
};

}  // namespace

std::unique_ptr<Collector> make_textfile(const CollectorContext& ctx) {
  return std::make_unique<TextfileCollector>(ctx);
}

}  // namespace llmon::collector
