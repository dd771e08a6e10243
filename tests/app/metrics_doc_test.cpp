// docs/metrics.md lists every metric family each collector emits. The part
// between the GENERATED markers comes from running every collector on the
// fixture tree; this test fails when it is stale (LLMON_UPDATE_GOLDEN=1 rewrites it).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "app/setup.h"
#include "collector/registry.h"
#include "support/test_paths.h"

namespace llmon::app {
namespace {

const char* kBegin = "<!-- BEGIN GENERATED: metric table (tests/app/metrics_doc_test.cpp) -->\n";
const char* kEnd = "<!-- END GENERATED -->\n";

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string generate() {
  base::ManualClock clock(1'700'000'000'000);
  base::Logger log(base::LogLevel::kError, std::tmpfile());
  std::string out = kBegin;
  for (const auto& info : collector::builtin_collectors()) {
    auto s = config::load({"agent", "--path.procfs=" + testing::fixture("proc"),
                           "--path.sysfs=" + testing::fixture("sys"), "--path.rootfs=" + testing::fixture("rootfs"),
                           "--collector.disable-defaults", "--collector." + std::string(info.name)},
                          {});
    EXPECT_TRUE(s) << s.error();
    collector::Scheduler sched(enabled_collectors(*s, clock, log), clock, log, 1000);
    sched.run_cycle(1000);
    auto snap = sched.run_cycle(2000);
    out += "\n### " + std::string(info.name) + (info.enabled_by_default ? "" : " (off by default)") + "\n\n";
    out += escape(std::string(info.help)) + "\n\n| Metric | Type | Labels | Help |\n|---|---|---|---|\n";
    for (uint32_t idx : snap->order) {
      const auto& f = snap->families[idx];
      if (f.name.rfind("node_scrape_collector_", 0) == 0) continue;
      std::string labels;
      for (const auto& l : f.label_names) labels += (labels.empty() ? "" : ", ") + l;
      out += "| `" + f.name + "` | " + std::string(model::type_name(f.type)) + " | " + labels + " | " +
             escape(f.help) + " |\n";
    }
  }
  out += "\n";
  out += kEnd;
  return out;
}

TEST(MetricsDoc, DocsMetricsMdListsEveryFamily) {
  std::string path = testing::source_dir() + "/docs/metrics.md";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  size_t b = doc.find(kBegin), e = doc.find(kEnd);
  ASSERT_NE(b, std::string::npos) << "docs/metrics.md lacks the BEGIN GENERATED marker";
  ASSERT_NE(e, std::string::npos) << "docs/metrics.md lacks the END GENERATED marker";
  std::string current = doc.substr(b, e + std::string(kEnd).size() - b);
  std::string fresh = generate();
  if (testing::update_golden() && current != fresh) {
    doc.replace(b, current.size(), fresh);
    std::ofstream(path) << doc;
    current = fresh;
  }
  EXPECT_EQ(current, fresh) << "docs/metrics.md is stale: rerun this test with LLMON_UPDATE_GOLDEN=1";
}

}  // namespace
}  // namespace llmon::app
