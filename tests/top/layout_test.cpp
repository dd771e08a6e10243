// The layout at 80x24, 120x40 and 200x60 against golden screens
// (tests/golden/top_*.txt; LLMON_UPDATE_GOLDEN=1 rewrites them).
#include "top/layout.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/test_paths.h"
#include "top/sample_summary.h"
#include "top_test_util.h"

namespace llmon::top {
namespace {

struct Case {
  const char* golden;
  int w, h;
  bool ascii;
};

std::string draw_text(int w, int h, ViewState& v, bool ascii, const summary::HostSummary& host) {
  Screen s(w, h);
  GpuHistory hist = testing::sample_history(host);
  DrawOptions o;
  o.ascii = ascii;
  o.clock = "12:00:00";
  draw(s, host, hist, v, o);
  return s.to_text();
}

class LayoutGolden : public ::testing::TestWithParam<Case> {};

TEST_P(LayoutGolden, MatchesGoldenScreen) {
  const Case& c = GetParam();
  ViewState v;
  check_golden(c.golden, draw_text(c.w, c.h, v, c.ascii, testing::sample_host()));
}

INSTANTIATE_TEST_SUITE_P(Sizes, LayoutGolden,
                         ::testing::Values(Case{"top_80x24.txt", 80, 24, false}, Case{"top_120x40.txt", 120, 40, false},
                                           Case{"top_200x60.txt", 200, 60, false},
                                           Case{"top_80x24_ascii.txt", 80, 24, true}),
                         [](const auto& info) {
                           std::string n = info.param.golden;
                           n = n.substr(4, n.size() - 8);
                           return n;
                         });

TEST(Layout, EightGpusAndProcessesFitAt80x24) {
  ViewState v;
  summary::HostSummary h = testing::sample_host();
  std::string t = draw_text(80, 24, v, false, h);
  for (int i = 0; i < 8; ++i) EXPECT_NE(t.find("\n" + std::to_string(i) + "  "), std::string::npos) << i << "\n" << t;
  EXPECT_NE(t.find("XID79"), std::string::npos);
  EXPECT_NE(t.find("UNHEALTHY"), std::string::npos);
  EXPECT_NE(t.find("STH HTH"), std::string::npos);
  EXPECT_NE(t.find("GPU-MEM▼"), std::string::npos);
  EXPECT_NE(t.find("41005"), std::string::npos);  // the largest GPU memory first
}

TEST(Layout, HelpOverlayAndFilterPrompt) {
  summary::HostSummary h = testing::sample_host();
  ViewState v;
  v.help = true;
  check_golden("top_80x24_help.txt", draw_text(80, 24, v, false, h));
  ViewState f;
  f.filter = "vll";
  f.editing_filter = true;
  std::string t = draw_text(80, 24, f, false, h);
  EXPECT_NE(t.find("filter: vll_"), std::string::npos) << t;
  EXPECT_NE(t.find("52311"), std::string::npos);
  EXPECT_EQ(t.find("41000"), std::string::npos) << "alice's processes are filtered out";
  f.editing_filter = false;
  EXPECT_NE(draw_text(80, 24, f, false, h).find("filter \"vll\"  2/9 procs"), std::string::npos);
}

TEST(Layout, AsciiModeWritesOnlyAscii) {
  ViewState v;
  v.help = true;
  std::string t = draw_text(80, 24, v, true, testing::sample_host());
  for (unsigned char c : t) ASSERT_LT(c, 0x80) << t;
}

TEST(Layout, SelectedRowIsReversedAndScrollFollowsIt) {
  summary::HostSummary h = testing::sample_host();
  GpuHistory hist;
  ViewState v;
  v.sort = SortKey::kPid;
  v.descending = false;
  v.selected_pid = "9001";  // the lowest pid: the first row
  Screen s(80, 24);
  ProcessArea a = draw(s, h, hist, v, DrawOptions{});
  ASSERT_GT(a.first_y, 0);
  EXPECT_NE(s.at(0, a.first_y).style.attrs & kReverse, 0);
  // Select the last one on a screen too short for all: scroll moves.
  v.selected_pid = "52388";
  Screen small(80, 18);
  a = draw(small, h, hist, v, DrawOptions{});
  ASSERT_GT(a.rows, 0);
  ASSERT_LT(a.rows, 9);
  EXPECT_GT(v.scroll, 0);
  EXPECT_NE(small.to_text().find("52388"), std::string::npos) << small.to_text();
}

TEST(Layout, MigInstancesGetRowsWhenTheyFit) {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  summary::HostSummary h = testing::sample_host();
  h.gpus.gpus.resize(2);
  for (const char* id : {"1", "2"}) {
    summary::MigInstance m;
    m.profile = "3g.40gb";
    m.instance_id = id;
    m.mem_used_bytes = 2 * kGiB;
    m.mem_total_bytes = 39.5 * kGiB;
    h.gpus.gpus[0].mig.push_back(m);
  }
  ViewState v;
  std::string t = draw_text(120, 40, v, false, h);
  EXPECT_NE(t.find("\n    └ 3g.40gb #1 "), std::string::npos) << t;
  EXPECT_NE(t.find("└ 3g.40gb #2 "), std::string::npos) << t;
  EXPECT_NE(t.find("2.0G/40G"), std::string::npos) << t;
  EXPECT_NE(t.find("MIG2"), std::string::npos) << t;
  // No room: the GPU rows stay, the instance rows go.
  h.gpus.gpus.resize(8, h.gpus.gpus[1]);
  for (size_t i = 1; i < 8; ++i) h.gpus.gpus[i].mig = h.gpus.gpus[0].mig;
  t = draw_text(80, 24, v, false, h);
  EXPECT_EQ(t.find("3g.40gb #1"), std::string::npos) << t;
  EXPECT_NE(t.find("MIG2"), std::string::npos) << t;
}

TEST(Layout, NoGpusSaysWhy) {
  summary::HostSummary h = testing::sample_host();
  h.gpus = {};
  summary::GpuBackendState b;
  b.backend = "nvml";
  b.reason = "library_not_found";
  h.gpus.backends.push_back(b);
  ViewState v;
  std::string t = draw_text(80, 24, v, false, h);
  EXPECT_NE(t.find("no GPUs  nvml: library_not_found"), std::string::npos) << t;
  EXPECT_NE(t.find("no GPU processes"), std::string::npos) << t;
}

TEST(Layout, TinyAndEmptyScreensDoNotCrash) {
  summary::HostSummary h = testing::sample_host();
  ViewState v;
  for (int w : {0, 1, 5, 20, 40})
    for (int ht : {0, 1, 2, 3, 5, 10}) {
      Screen s(w, ht);
      draw(s, h, GpuHistory{}, v, DrawOptions{});
    }
}

}  // namespace
}  // namespace llmon::top
