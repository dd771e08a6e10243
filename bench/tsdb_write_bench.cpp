// Append throughput of tsdb::Db shaped like `promtool tsdb bench write`, for the side-by-side
// comparison in docs/performance.md "Time-series store: side by side" (bench/tsdb_compare.sh runs
// both). Measurement code, not the product.
//
//   tsdb_write_bench --labels FILE [--metrics 10000] [--scrapes 3000] [--shape promtool|cycle]
//                    [--dir DIR] [--fsync-interval-ms 1000] [--runs 1] [--keep]
//
// What promtool does (cmd/promtool/tsdb.go, Prometheus 2.42): reads the first --metrics distinct
// label sets of FILE (one JSON object a line; it strips `"{}` and splits on `,` and `:`), opens a
// tsdb.DB with its WAL on (128 MB segments, no compression, no fsync per commit) and compactions
// off, then in rounds of 100 scrapes starts one goroutine per 1 000 series; each goroutine
// appends its 1 000 series for 100 scrapes with ONE commit per scrape (1 000 samples a commit).
// Timestamps step 30 s; every series' value starts at 123456789 and grows by 1000 a scrape.
// It prints total/wall of that ingest stage ("samples/sec").
//
// Here the same label sets, timestamps and values go through tsdb::Db (WAL on, background thread
// persisting closed 2 h chunks as it does in the agent), on one thread:
//   --shape promtool  promtool's order and commit size: rounds of 100 scrapes, 1 000-series
//                     shards one after another, one commit per shard-scrape (1 000 samples);
//   --shape cycle     the agent's shape: one commit per scrape holding every series.
// Timestamps end near now (a Db rejects samples older than its retention; promtool starts at
// t=0), which changes nothing in the encoding (deltas). Reported per run, one JSON line:
// samples, wall and CPU seconds of the ingest stage (getrusage of the whole process, so the
// background persistence thread counts), samples per wall second and per CPU second, close()
// time (persisting the open chunks, like promtool's stopStorage stage, not counted), peak RSS.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "tsdb/db.h"

using llmon::model::Label;
using llmon::model::Labels;
using llmon::storage::SeriesRef;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kTimeDeltaMs = 30000;
constexpr double kStartValue = 123456789;
constexpr size_t kShard = 1000;        // promtool: series per goroutine (and per commit)
constexpr int kScrapesPerRound = 100;  // promtool: scrapes per goroutine round

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
long max_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "tsdb_write_bench: %s\n", msg.c_str());
  std::exit(1);
}

// promtool's readPrometheusLabels: strip `"`, `{`, `}`, split on `,` then `:`; skip repeats.
std::vector<Labels> read_labels(const std::string& path, size_t n) {
  std::ifstream f(path);
  if (!f) die(path + ": cannot open");
  std::vector<Labels> out;
  std::unordered_set<uint64_t> seen;
  std::string line;
  size_t lineno = 0;
  while (out.size() < n && std::getline(f, line)) {
    ++lineno;
    std::string s;
    for (char c : line) {
      if (c != '"' && c != '{' && c != '}') s.push_back(c);
    }
    std::vector<Label> pairs;
    size_t i = 0;
    while (i <= s.size()) {
      size_t comma = s.find(',', i);
      if (comma == std::string::npos) comma = s.size();
      std::string chunk = s.substr(i, comma - i);
      size_t colon = chunk.find(':');
      if (colon == std::string::npos) die(path + ":" + std::to_string(lineno) + ": label without ':'");
      pairs.push_back({chunk.substr(0, colon), chunk.substr(colon + 1)});
      i = comma + 1;
    }
    auto l = Labels::make(std::move(pairs));
    if (!l) die(path + ":" + std::to_string(lineno) + ": " + l.error());
    if (seen.insert(l->hash()).second) out.push_back(std::move(*l));
  }
  if (out.size() < n) die(path + ": only " + std::to_string(out.size()) + " distinct label sets");
  return out;
}

struct Args {
  std::string labels, dir, shape = "promtool";
  size_t metrics = 10000;
  int scrapes = 3000, runs = 1;
  bool keep = false;
  int64_t fsync_interval_ms = 1000;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + k);
      return argv[++i];
    };
    if (k == "--labels") {
      a.labels = val();
    } else if (k == "--metrics") {
      a.metrics = std::stoul(val());
    } else if (k == "--scrapes") {
      a.scrapes = std::stoi(val());
    } else if (k == "--shape") {
      a.shape = val();
    } else if (k == "--dir") {
      a.dir = val();
    } else if (k == "--fsync-interval-ms") {
      a.fsync_interval_ms = std::stoll(val());
    } else if (k == "--keep") {
      a.keep = true;
    } else if (k == "--runs") {
      a.runs = std::stoi(val());
    } else {
      die("unknown argument " + k + " (see the comment at the top of bench/tsdb_write_bench.cpp)");
    }
  }
  if (a.labels.empty()) die("--labels FILE is required (bench/gen_labels.py 20000 > FILE)");
  if (a.shape != "promtool" && a.shape != "cycle") die("--shape is promtool or cycle");
  if (a.scrapes % kScrapesPerRound != 0) die("--scrapes must be a multiple of 100 (promtool's rounds)");
  return a;
}

struct Run {
  uint64_t samples = 0, commits = 0;
  double wall = 0, cpu = 0, close_wall = 0;
};

Run run_once(const Args& a, const std::vector<Labels>& lbls, const std::string& dir) {
  llmon::base::Logger log(llmon::base::LogLevel::kWarn, stderr);
  llmon::base::SystemClock clock;
  llmon::tsdb::DbOptions o;
  o.path = dir;
  o.fsync_interval_ms = a.fsync_interval_ms;
  o.min_free_bytes = 0;
  auto db = llmon::tsdb::Db::open(o, log, clock);
  if (!db) die(db.error());
  const size_t n = lbls.size();
  std::vector<SeriesRef> refs(n, 0);
  std::vector<double> values(n, kStartValue);
  // End the data ~1 h before now, 2 h aligned start (chunk ranges as in the agent).
  const int64_t span = kTimeDeltaMs * a.scrapes;
  const int64_t range = o.head.chunk_range_ms;
  const int64_t base = (clock.now_ms() - span - 3600 * 1000) / range * range;
  Run r;
  auto append_one = [&](llmon::storage::Appender& app, size_t i, int64_t t) {
    values[i] += 1000;
    auto ref = app.append(refs[i], lbls[i], t, values[i]);
    if (!ref) die("append: " + ref.error());
    refs[i] = *ref;
  };
  auto commit = [&](std::unique_ptr<llmon::storage::Appender>& app) {
    if (llmon::Status st = app->commit(); !st.is_ok()) die("commit: " + st.message());
    ++r.commits;
  };
  double w0 = now_s(), c0 = cpu_s();
  if (a.shape == "promtool") {
    for (int round = 0; round < a.scrapes; round += kScrapesPerRound) {
      for (size_t lo = 0; lo < n; lo += kShard) {
        size_t hi = std::min(n, lo + kShard);
        int64_t ts = base + kTimeDeltaMs * round;
        for (int k = 0; k < kScrapesPerRound; ++k) {
          ts += kTimeDeltaMs;
          auto app = (*db)->appender();
          for (size_t i = lo; i < hi; ++i) append_one(*app, i, ts);
          commit(app);
        }
      }
    }
  } else {
    int64_t ts = base;
    for (int s = 0; s < a.scrapes; ++s) {
      ts += kTimeDeltaMs;
      auto app = (*db)->appender();
      for (size_t i = 0; i < n; ++i) append_one(*app, i, ts);
      commit(app);
    }
  }
  r.wall = now_s() - w0;
  r.cpu = cpu_s() - c0;
  r.samples = static_cast<uint64_t>(n) * static_cast<uint64_t>(a.scrapes);
  auto st = (*db)->stats();
  if (st.samples_committed != r.samples || st.head.samples_appended != r.samples) {
    die("committed " + std::to_string(st.samples_committed) + " / appended " +
        std::to_string(st.head.samples_appended) + " samples, expected " + std::to_string(r.samples));
  }
  double w1 = now_s();
  if (llmon::Status cs = (*db)->close(); !cs.is_ok()) die("close: " + cs.message());
  r.close_wall = now_s() - w1;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  std::vector<Labels> lbls = read_labels(a.labels, a.metrics);
  double label_pairs = 0, label_bytes = 0;
  for (const auto& l : lbls) {
    label_pairs += static_cast<double>(l.size());
    for (const auto& p : l.pairs()) label_bytes += static_cast<double>(p.name.size() + p.value.size());
  }
  for (int i = 0; i < a.runs; ++i) {
    std::string dir = a.dir;
    bool temp = dir.empty();
    if (temp) {
      char tmpl[] = "/tmp/tsdb_write_bench.XXXXXX";
      if (::mkdtemp(tmpl) == nullptr) die(std::string("mkdtemp: ") + std::strerror(errno));
      dir = tmpl;
    } else {
      fs::remove_all(dir);
    }
    Run r = run_once(a, lbls, dir);
    std::error_code ec;
    uint64_t disk = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
      if (e.is_regular_file(ec)) disk += e.file_size(ec);
    }
    std::printf(
        "{\"run\": %d, \"shape\": \"%s\", \"series\": %zu, \"scrapes\": %d, \"samples\": %llu, \"commits\": %llu, "
        "\"samples_per_commit\": %.0f, \"label_pairs_per_series\": %.2f, \"label_bytes_per_series\": %.1f, "
        "\"fsync_interval_ms\": %lld, \"ingest_wall_s\": %.3f, \"ingest_cpu_s\": %.3f, \"samples_per_s_wall\": %.0f, "
        "\"samples_per_cpu_s\": %.0f, \"close_wall_s\": %.3f, \"disk_bytes\": %llu, \"peak_rss_kb\": %ld}\n",
        i + 1, a.shape.c_str(), lbls.size(), a.scrapes, static_cast<unsigned long long>(r.samples),
        static_cast<unsigned long long>(r.commits), static_cast<double>(r.samples) / static_cast<double>(r.commits),
        label_pairs / static_cast<double>(lbls.size()), label_bytes / static_cast<double>(lbls.size()),
        static_cast<long long>(a.fsync_interval_ms), r.wall, r.cpu, static_cast<double>(r.samples) / r.wall,
        static_cast<double>(r.samples) / r.cpu, r.close_wall, static_cast<unsigned long long>(disk), max_rss_kb());
    std::fflush(stdout);
    if (!a.keep) fs::remove_all(dir, ec);
  }
  return 0;
}
