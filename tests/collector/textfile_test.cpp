#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "collector/builtin.h"
#include "collector/options.h"
#include "collector_test_util.h"
#include "temp_fixture.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::fixture;
using testing::fixture_context;
using testing::series_count;
using testing::TempFixture;
using testing::value_of;

double mtime_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return static_cast<double>(st.st_mtim.tv_sec);
}

// A logger writing to a temporary file, and what it wrote.
struct CapturedLog {
  std::FILE* file = std::tmpfile();
  base::Logger log{base::LogLevel::kDebug, file};
  ~CapturedLog() { std::fclose(file); }
  std::string text() {
    std::fflush(file);
    std::rewind(file);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file)) > 0) out.append(buf, n);
    return out;
  }
};

TEST(TextfileCollector, FixtureDirectory) {
  CapturedLog cl;
  auto ctx = fixture_context();
  ctx.log = &cl.log;
  const std::string dir = fixture("textfile");
  ctx.set_option(flag::kCollectorTextfileDirectory, dir);
  auto c = make_textfile(ctx);
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_TRUE(s) << s.message();  // a broken file is scrape_error 1, not a failed collector

  EXPECT_EQ(value_of(snap, "slurm_jobs_running", {{"partition", "gpu"}}), 3);
  EXPECT_EQ(value_of(snap, "slurm_jobs_running", {{"partition", "debug"}}), 0);
  EXPECT_EQ(snap.find("slurm_jobs_running")->help, "Jobs running on this node, from squeue.");
  EXPECT_EQ(snap.find("slurm_jobs_running")->type, model::MetricType::kGauge);
  EXPECT_EQ(value_of(snap, "node_reboot_required", {}), 0);
  EXPECT_EQ(value_of(snap, "apt_upgrades_pending", {{"arch", "all"}, {"origin", "Debian:bookworm/stable"}}), 5);
  // One family in two files, without HELP: both files named, both series kept.
  EXPECT_EQ(series_count(snap, "shared_counter_total"), 2u);
  EXPECT_EQ(snap.find("shared_counter_total")->help,
            "Metric read from " + dir + "/apt.prom, " + dir + "/gpu_jobs.prom");
  EXPECT_EQ(snap.find("shared_counter_total")->type, model::MetricType::kCounter);
  // Label names are the union within a file's family; absent ones are "".
  const model::Family* u = snap.find("untyped_without_help");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->label_names, std::vector<std::string>{"kind"});
  EXPECT_EQ(u->type, model::MetricType::kUntyped);
  EXPECT_EQ(value_of(snap, "untyped_without_help", {{"kind", ""}}), 2);
  EXPECT_EQ(u->help, "Metric read from " + dir + "/apt.prom");
  // broken.prom is skipped whole; README.txt is not a .prom file.
  EXPECT_EQ(snap.find("smartmon_device_active"), nullptr);
  EXPECT_EQ(snap.find("ignored_metric"), nullptr);
  EXPECT_EQ(series_count(snap, "node_textfile_mtime_seconds"), 2u);
  EXPECT_EQ(value_of(snap, "node_textfile_mtime_seconds", {{"file", dir + "/apt.prom"}}), mtime_of(dir + "/apt.prom"));
  EXPECT_EQ(value_of(snap, "node_textfile_mtime_seconds", {{"file", dir + "/gpu_jobs.prom"}}),
            mtime_of(dir + "/gpu_jobs.prom"));
  EXPECT_EQ(value_of(snap, "node_textfile_scrape_error", {}), 1);
  EXPECT_EQ(snap.find("node_textfile_scrape_error")->help,
            "1 if there was an error opening or reading a file, 0 otherwise");
  EXPECT_EQ(snap.find("node_textfile_mtime_seconds")->help, "Unixtime mtime of textfiles successfully read.");
  const std::string log = cl.text();
  EXPECT_NE(log.find(dir + "/broken.prom:4:"), std::string::npos) << log;
  // The error is logged once, not every cycle.
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(cl.text(), log);
  EXPECT_EQ(value_of(snap, "node_textfile_scrape_error", {}), 1);
}

TEST(TextfileCollector, EmptyDirectoryOptionReadsNothing) {
  auto c = make_textfile(fixture_context());  // the default: ""
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(snap.series_count(), 1u);
  EXPECT_EQ(value_of(snap, "node_textfile_scrape_error", {}), 0);
}

TEST(TextfileCollector, MissingDirectoryIsAScrapeError) {
  CapturedLog cl;
  auto ctx = fixture_context();
  ctx.log = &cl.log;
  ctx.set_option(flag::kCollectorTextfileDirectory, "/nonexistent/llmon-textfile");
  auto c = make_textfile(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_textfile_scrape_error", {}), 1);
  EXPECT_EQ(series_count(snap, "node_textfile_mtime_seconds"), 0u);
  EXPECT_NE(cl.text().find("/nonexistent/llmon-textfile"), std::string::npos);
}

// What node_exporter 1.5 showed for the same two files (client_golang's
// registry keeps the first of conflicting families and series).
TEST(TextfileCollector, ConflictsAcrossFilesKeepTheFirst) {
  TempFixture fx({});
  fx.write("tf/a.prom",
           "# HELP help_conflict First help.\n# TYPE help_conflict gauge\nhelp_conflict{f=\"a\"} 1\n"
           "# TYPE type_conflict gauge\ntype_conflict{f=\"a\"} 1\n"
           "# HELP dup_series Dup.\n# TYPE dup_series gauge\ndup_series{x=\"1\"} 1\n"
           "# HELP help_one Has help here.\nhelp_one{f=\"a\"} 1\n"
           "label_mismatch{a=\"1\"} 1\n");
  fx.write("tf/b.prom",
           "# HELP help_conflict Second help.\n# TYPE help_conflict gauge\nhelp_conflict{f=\"b\"} 2\n"
           "# TYPE type_conflict counter\ntype_conflict{f=\"b\"} 2\n"
           "# HELP dup_series Dup.\n# TYPE dup_series gauge\ndup_series{x=\"1\"} 2\n"
           "help_one{f=\"b\"} 2\n"
           "label_mismatch{b=\"2\"} 2\n");
  fx.write("tf/c.prom", "ts_metric 1 1700000000000\n");
  fx.write("tf/d.prom", "no_newline_metric 3");
  fx.write("tf/e.prom", "# TYPE rpc summary\nrpc{quantile=\"0.5\"} 1\nrpc_sum 1\nrpc_count 1\nplain 4\n");
  auto ctx = fixture_context();
  CapturedLog cl;
  ctx.log = &cl.log;
  const std::string dir = fx.path("tf");
  ctx.set_option(flag::kCollectorTextfileDirectory, dir + "/");  // joined as filepath.Join does
  auto c = make_textfile(ctx);
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(series_count(snap, "help_conflict"), 1u);
  EXPECT_EQ(value_of(snap, "help_conflict", {{"f", "a"}}), 1);
  EXPECT_EQ(series_count(snap, "type_conflict"), 1u);
  EXPECT_EQ(snap.find("type_conflict")->help, "Metric read from " + dir + "/a.prom, " + dir + "/b.prom");
  EXPECT_EQ(series_count(snap, "dup_series"), 1u);
  EXPECT_EQ(value_of(snap, "dup_series", {{"x", "1"}}), 1);
  EXPECT_EQ(series_count(snap, "help_one"), 1u);
  EXPECT_EQ(series_count(snap, "label_mismatch"), 2u);
  size_t mismatch_families = 0;  // one per file: their label names differ
  for (const auto& f : snap.families) mismatch_families += f.name == "label_mismatch";
  EXPECT_EQ(mismatch_families, 2u);
  EXPECT_EQ(snap.find("ts_metric"), nullptr);
  EXPECT_EQ(snap.find("no_newline_metric"), nullptr);
  EXPECT_EQ(snap.find("rpc"), nullptr);  // summaries are not supported
  EXPECT_EQ(value_of(snap, "plain", {}), 4);
  EXPECT_EQ(series_count(snap, "node_textfile_mtime_seconds"), 3u);  // a, b, e
  EXPECT_EQ(value_of(snap, "node_textfile_scrape_error", {}), 1);
  const std::string log = cl.text();
  EXPECT_NE(log.find("contains unsupported client-side timestamps"), std::string::npos) << log;
  EXPECT_NE(log.find(dir + "/d.prom:1: unexpected end of input stream"), std::string::npos) << log;
  EXPECT_NE(log.find("summary and histogram families are not supported"), std::string::npos) << log;

  // Fixing the files clears the error.
  fx.remove("tf/c.prom");
  fx.write("tf/d.prom", "no_newline_metric 3\n");
  ASSERT_TRUE(collect_once(*c, snap, 2000));
  EXPECT_EQ(value_of(snap, "node_textfile_scrape_error", {}), 0);
  EXPECT_EQ(value_of(snap, "no_newline_metric", {}), 3);
}

}  // namespace
}  // namespace llmon::collector
