// `llmon tsdb import FILE...` and `llmon tsdb inspect [--json]`, on the
// directory given by --storage.path (docs/cli.md, docs/import.md).
//
// import: opens the store (taking its lock: no agent may hold it), imports
// each file (Prometheus text with optional millisecond timestamps; FILE.gz is
// gunzipped), then persists everything to chunk segments (the WAL ends empty)
// and prints what was accepted and rejected.
// inspect: opens the store read-only (no lock, nothing repaired or written,
// so it works beside a running agent) and prints series, samples, chunks,
// bytes on disk, bytes per sample (index included), the time range and the
// highest-cardinality metric names and labels.
// dump [METRIC]: read-only too; Prometheus text with ms timestamps on stdout.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "ingest/importer.h"
#include "app/storage_setup.h"
#include "base/clock.h"
#include "base/file_reader.h"
#include "exposition/text_writer.h"
#include "tsdb/db.h"

namespace llmon::app {
namespace {

// A read-only view of a whole file (mmap; empty files give an empty view).
class MappedFile {
 public:
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  Status open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::error(path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      return Status::error(path + ": " + std::strerror(errno));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        return Status::error(path + ": mmap: " + std::strerror(errno));
      }
      data_ = p;
      ::madvise(data_, size_, MADV_SEQUENTIAL);
    }
    ::close(fd);
    return Status::ok();
  }
  std::string_view view() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

std::string iso_time(int64_t ms) {
  std::time_t s = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int run_import(const config::Settings& s, const std::vector<std::string>& files, std::FILE* out, std::FILE* err) {
  if (files.empty()) {
    std::fprintf(err, "llmon tsdb import: no FILE given (usage: llmon tsdb import FILE... --storage.path DIR)\n");
    return 2;
  }
  base::Logger log(base::LogLevel::kWarn, err);
  base::SystemClock clock;
  tsdb::DbOptions o = db_options(s);
  o.background = false;
  o.retention_ms = 0;  // backfill: keep what is imported (the agent applies retention later)
  auto db = tsdb::Db::open(o, log, clock);
  if (!db) {
    std::fprintf(err, "llmon tsdb import: %s\n", db.error().c_str());
    return 1;
  }
  int rc = 0;
  ingest::ImportOptions io;
  io.now_ms = clock.now_ms();
  for (const std::string& f : files) {
    MappedFile mf;
    if (Status st = mf.open(f); !st) {
      std::fprintf(err, "llmon tsdb import: %s\n", st.message().c_str());
      rc = 1;
      continue;
    }
    std::string inflated;
    std::string_view text = mf.view();
    if (ends_with(f, ".gz")) {
      auto g = ingest::gunzip(text, size_t{16} << 30);
      if (!g) {
        std::fprintf(err, "llmon tsdb import: %s: %s\n", f.c_str(), g.error().c_str());
        rc = 1;
        continue;
      }
      inflated = std::move(*g);
      text = inflated;
    }
    double t0 = base::monotonic_seconds();
    auto stats = ingest::import_prometheus_text(**db, text, io);
    double secs = base::monotonic_seconds() - t0;
    if (!stats) {
      std::fprintf(err, "llmon tsdb import: %s: %s\n", f.c_str(), stats.error().c_str());
      rc = 1;
      continue;
    }
    std::fprintf(out, "%s: %s seconds=%.3f\n", f.c_str(), stats->summary().c_str(), secs);
    for (const auto& e : stats->parse_errors) std::fprintf(err, "%s: %s\n", f.c_str(), e.to_string().c_str());
    for (const auto& e : stats->rejections) std::fprintf(err, "%s: %s\n", f.c_str(), e.to_string().c_str());
    if (stats->samples_parsed == 0 && stats->invalid_lines > 0) rc = 1;
  }
  if (Status st = (*db)->flush(true); !st) {
    std::fprintf(err, "llmon tsdb import: persisting: %s (the samples stay in the WAL)\n", st.message().c_str());
    rc = 1;
  }
  if (Status st = (*db)->close(); !st) {
    std::fprintf(err, "llmon tsdb import: %s\n", st.message().c_str());
    rc = 1;
  }
  return rc;
}

std::vector<std::pair<std::string, size_t>> top(std::vector<std::pair<std::string, size_t>> v, size_t n) {
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  if (v.size() > n) v.resize(n);
  return v;
}

// The store opened read-only, with the logger and clock it refers to.
struct ReadOnlyStore {
  explicit ReadOnlyStore(std::FILE* err) : log(base::LogLevel::kError, err) {}
  // Opens --storage.path; on failure prints "llmon tsdb ACTION: why" and returns false.
  bool open(const config::Settings& s, const char* action, std::FILE* err) {
    tsdb::DbOptions o = db_options(s);
    o.read_only = true;
    auto opened = tsdb::Db::open(o, log, clock);
    if (!opened) {
      std::fprintf(err, "llmon tsdb %s: %s\n", action, opened.error().c_str());
      return false;
    }
    db = std::move(*opened);
    return true;
  }
  base::Logger log;
  base::SystemClock clock;
  std::unique_ptr<tsdb::Db> db;
};

int run_inspect(const config::Settings& s, std::FILE* out, std::FILE* err) {
  ReadOnlyStore store(err);
  if (!store.open(s, "inspect", err)) return 1;
  auto& db = store.db;
  const tsdb::DbOptions& o = db->options();
  tsdb::DbStats st = db->stats();
  tsdb::HeadMemory mem = db->head().memory();
  uint64_t disk = st.chunk_bytes + st.wal_bytes + st.series_log_bytes;
  auto per = [](uint64_t bytes, uint64_t samples) {
    return samples == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(samples);
  };
  auto names = top(db->head().series_per_value("__name__"), 10);
  auto labels = top(db->head().values_per_label(), 10);
  nlohmann::json j;
  j["path"] = o.path;
  j["series"] = st.series;
  j["samples"] = mem.samples;
  j["chunks"] = {{"persisted", st.persisted_chunks}, {"segments", st.chunk_segments},
                 {"in_memory", mem.closed_chunks - mem.persisted_chunks}};
  j["bytes_on_disk"] = {{"total", disk}, {"chunks", st.chunk_bytes}, {"wal", st.wal_bytes}, {"series", st.series_log_bytes}};
  j["bytes_per_sample"] = per(disk, mem.samples);
  j["chunk_bytes_per_persisted_sample"] = per(st.chunk_bytes, mem.persisted_samples);
  if (st.max_t != 0 || st.min_t != 0) {
    j["min_time"] = iso_time(st.min_t);
    j["max_time"] = iso_time(st.max_t);
    j["min_time_ms"] = st.min_t;
    j["max_time_ms"] = st.max_t;
  }
  j["recovery"] = {{"wal_samples", st.replayed_samples}, {"repairs", st.repairs}};
  j["top_metric_names"] = nlohmann::json::array();
  for (const auto& [n, c] : names) j["top_metric_names"].push_back({{"name", n}, {"series", c}});
  j["top_labels"] = nlohmann::json::array();
  for (const auto& [n, c] : labels) j["top_labels"].push_back({{"label", n}, {"values", c}});
  if (s.get(config::flag::kJson)) {
    std::fprintf(out, "%s\n", j.dump(2).c_str());
    return 0;
  }
  std::fprintf(out, "path              %s\n", o.path.c_str());
  std::fprintf(out, "series            %llu\n", static_cast<unsigned long long>(st.series));
  std::fprintf(out, "samples           %llu\n", static_cast<unsigned long long>(mem.samples));
  std::fprintf(out, "chunks            %llu in %llu segments, %zu in memory\n",
               static_cast<unsigned long long>(st.persisted_chunks), static_cast<unsigned long long>(st.chunk_segments),
               mem.closed_chunks - mem.persisted_chunks);
  std::fprintf(out, "bytes on disk     %llu (chunks %llu, wal %llu, series %llu)\n", static_cast<unsigned long long>(disk),
               static_cast<unsigned long long>(st.chunk_bytes), static_cast<unsigned long long>(st.wal_bytes),
               static_cast<unsigned long long>(st.series_log_bytes));
  std::fprintf(out, "bytes per sample  %.3f (all files; chunk segments alone: %.3f per persisted sample)\n",
               per(disk, mem.samples), per(st.chunk_bytes, mem.persisted_samples));
  if (j.contains("min_time")) {
    std::fprintf(out, "time range        %s .. %s (%.1f h)\n", iso_time(st.min_t).c_str(), iso_time(st.max_t).c_str(),
                 static_cast<double>(st.max_t - st.min_t) / 3.6e6);
  }
  std::fprintf(out, "recovery          %llu WAL samples replayed, %llu repairs\n",
               static_cast<unsigned long long>(st.replayed_samples), static_cast<unsigned long long>(st.repairs));
  std::fprintf(out, "top metric names by series:\n");
  for (const auto& [n, c] : names) std::fprintf(out, "  %8zu  %s\n", c, n.c_str());
  std::fprintf(out, "top labels by distinct values:\n");
  for (const auto& [n, c] : labels) std::fprintf(out, "  %8zu  %s\n", c, n.c_str());
  return 0;
}

// Every sample (or those of one metric name) as Prometheus text with ms
// timestamps, grouped by series in label order, oldest first: the input
// `tsdb import` and VictoriaMetrics' import take. Staleness markers are left
// out (the text format cannot carry them; a NaN there is an ordinary value).
int run_dump(const config::Settings& s, const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  ReadOnlyStore store(err);
  if (!store.open(s, "dump", err)) return 1;
  auto& db = store.db;
  std::vector<model::Matcher> ms;
  if (args.empty()) {
    ms.push_back({model::Matcher::Type::kRe, "__name__", ".+"});
  } else {
    ms.push_back({model::Matcher::Type::kEq, "__name__", args[0]});
  }
  auto q = db->querier(INT64_MIN, INT64_MAX);
  if (!q) {
    std::fprintf(err, "llmon tsdb dump: %s\n", q.error().c_str());
    return 1;
  }
  auto set = (*q)->select(INT64_MIN, INT64_MAX, ms);
  std::string line, prefix;
  uint64_t n = 0;
  while (set->next()) {
    const model::Labels& l = set->at().labels();
    prefix = std::string(l.get("__name__"));
    bool first = true;
    for (const auto& p : l.pairs()) {
      if (p.name == "__name__") continue;
      prefix += first ? "{" : ",";
      first = false;
      prefix += p.name;
      prefix += "=\"";
      exposition::append_escaped_label_value(prefix, p.value);
      prefix += "\"";
    }
    if (!first) prefix += "}";
    auto it = set->at().iterator();
    while (it->next()) {
      model::Sample smp = it->at();
      if (model::is_stale(smp.v)) continue;
      line = prefix;
      line += ' ';
      exposition::append_value(line, smp.v);
      line += ' ';
      line += std::to_string(smp.t_ms);
      line += '\n';
      std::fwrite(line.data(), 1, line.size(), out);
      ++n;
    }
    if (!it->err().is_ok()) {
      std::fprintf(err, "llmon tsdb dump: %s: %s\n", l.to_string().c_str(), it->err().message().c_str());
      return 1;
    }
  }
  if (!set->err().is_ok()) {
    std::fprintf(err, "llmon tsdb dump: %s\n", set->err().message().c_str());
    return 1;
  }
  std::fprintf(err, "%llu samples\n", static_cast<unsigned long long>(n));
  return 0;
}

}  // namespace

int run_tsdb(const config::Settings& s, std::FILE* out, std::FILE* err) {
  const auto& pos = s.positional;
  if (pos.empty()) {
    std::fprintf(err, "llmon tsdb: say import or inspect (see llmon help)\n");
    return 2;
  }
  if (pos[0] == "import") return run_import(s, std::vector<std::string>(pos.begin() + 1, pos.end()), out, err);
  if (pos[0] == "inspect") {
    if (pos.size() > 1) {
      std::fprintf(err, "llmon tsdb inspect: unexpected argument \"%s\"\n", pos[1].c_str());
      return 2;
    }
    return run_inspect(s, out, err);
  }
  if (pos[0] == "dump") return run_dump(s, std::vector<std::string>(pos.begin() + 1, pos.end()), out, err);
  std::fprintf(err, "llmon tsdb: unknown action \"%s\" (import, inspect or dump)\n", pos[0].c_str());
  return 2;
}

}  // namespace llmon::app
