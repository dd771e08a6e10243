// self collector: reads the real /proc/self whatever --path.procfs says.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <ctime>

#include "collector/builtin.h"
#include "support/test_paths.h"

namespace llmon::collector {
namespace {

Status collect_self(Collector& c, model::Snapshot& snap) {
  model::SnapshotBuilder b(snap, 1000);
  Status s = c.collect(b);
  b.finish();
  return s;
}

double get(const model::Snapshot& s, std::string_view name) {
  const model::Series* v = s.find_series(name, {});
  EXPECT_NE(v, nullptr) << name;
  return v ? v->value : -1;
}

TEST(SelfCollector, OwnProcessNotTheFixture) {
  CollectorContext ctx;
  ctx.fs.proc_root = testing::fixture("proc");  // must be ignored
  ctx.version = "1.2.3";
  auto c = make_self(ctx);
  model::Snapshot s;
  Status st = collect_self(*c, s);
  ASSERT_TRUE(st) << st.message();

  EXPECT_NE(s.find_series("llmon_build_info", {{"version", "1.2.3"}}), nullptr);
  EXPECT_GE(get(s, "process_cpu_seconds_total"), 0);
  EXPECT_EQ(s.find("process_cpu_seconds_total")->type, model::MetricType::kCounter);
  EXPECT_GT(get(s, "process_resident_memory_bytes"), 1e5);
  EXPECT_GT(get(s, "process_virtual_memory_bytes"), get(s, "process_resident_memory_bytes"));
  EXPECT_GE(get(s, "process_open_fds"), 3);

  struct rlimit nofile {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &nofile), 0);
  EXPECT_EQ(get(s, "process_max_fds"), static_cast<double>(nofile.rlim_cur));
  struct rlimit as {};
  ASSERT_EQ(::getrlimit(RLIMIT_AS, &as), 0);
  const double as_expected = as.rlim_cur == RLIM_INFINITY ? 18446744073709551615.0 : static_cast<double>(as.rlim_cur);
  EXPECT_EQ(get(s, "process_virtual_memory_max_bytes"), as_expected);

  // This test process started a moment ago.
  const double start = get(s, "process_start_time_seconds");
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_LE(start, now + 1);
  EXPECT_GT(start, now - 3600);

  for (auto name : {"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
                    "process_virtual_memory_max_bytes", "process_open_fds", "process_max_fds",
                    "process_start_time_seconds", "llmon_build_info"})
    EXPECT_NE(s.find(name), nullptr) << name;
}

TEST(SelfCollector, VersionFallsBackToUnknown) {
  CollectorContext ctx;
  auto c = make_self(ctx);
  model::Snapshot s;
  ASSERT_TRUE(collect_self(*c, s));
  EXPECT_NE(s.find_series("llmon_build_info", {{"version", "unknown"}}), nullptr);
}

}  // namespace
}  // namespace llmon::collector
