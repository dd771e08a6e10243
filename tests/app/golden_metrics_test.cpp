// Golden test of the agent's whole /metrics page on the fixture tree: every
// enabled collector, two cycles 1 s apart (ManualClock; so rate-style state is
// exercised), rendered as text 0.0.4 and compared with
// tests/golden/fixture_metrics.txt. Values that are not deterministic on a
// fixture tree are masked (label sets kept). LLMON_UPDATE_GOLDEN=1 rewrites
// the golden file; review its diff.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "app/setup.h"
#include "base/clock.h"
#include "base/file_reader.h"
#include "base/log.h"
#include "collector/scheduler.h"
#include "config/settings.h"
#include "exposition/text_writer.h"
#include "support/test_paths.h"

namespace llmon::app {
namespace {

constexpr std::string_view kMask = "<masked>";

// A family whose sample values (and, where listed, label values) depend on
// the machine, the moment or the process rather than on the fixture tree.
struct MaskRule {
  std::string_view name;  // exact family name, or a prefix when it ends in '*'
  std::vector<std::string_view> labels;  // label values to mask too
};

const std::vector<MaskRule>& mask_rules() {
  static const std::vector<MaskRule> kRules = {
      {"node_scrape_collector_duration_seconds", {}},  // timing
      {"node_time_*", {"time_zone"}},                  // wall clock and the host's time zone
      {"node_timex_*", {}},                            // adjtimex(2) of the live kernel
      {"process_*", {}},                               // the test process itself
      {"llmon_build_info", {}},
      {"llmon_gpu_sample_duration_seconds", {}},  // timing
      {"llmon_gpu_backend_up", {"reason"}},       // names the checkout's absolute path
      // uname(2) describes the machine running the test, not the fixture.
      {"node_uname_info", {"domainname", "machine", "nodename", "release", "sysname", "version"}},
      // statfs() of fixture directories reports the live disk under the checkout.
      {"node_filesystem_size_bytes", {}},
      {"node_filesystem_free_bytes", {}},
      {"node_filesystem_avail_bytes", {}},
      {"node_filesystem_files", {}},
      {"node_filesystem_files_free", {}},
  };
  return kRules;
}

const MaskRule* rule_for(std::string_view name) {
  for (const auto& r : mask_rules()) {
    if (!r.name.empty() && r.name.back() == '*') {
      if (name.substr(0, r.name.size() - 1) == r.name.substr(0, r.name.size() - 1)) return &r;
    } else if (name == r.name) {
      return &r;
    }
  }
  return nullptr;
}

// Masks one sample line per its rule. Label values may hold spaces, quotes and
// escapes, so the label block is scanned, not split.
std::string mask_line(std::string_view line, const MaskRule& rule) {
  std::string out;
  size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') out += line[i++];
  if (i < line.size() && line[i] == '{') {
    out += line[i++];
    while (i < line.size() && line[i] != '}') {
      size_t eq = line.find('=', i);
      if (eq == std::string_view::npos) return std::string(line);  // malformed: leave as is
      std::string_view key = line.substr(i, eq - i);
      out.append(line.substr(i, eq - i + 2));  // key="
      size_t j = eq + 2;
      std::string value;
      while (j < line.size() && line[j] != '"') {
        if (line[j] == '\\' && j + 1 < line.size()) value += line[j++];
        value += line[j++];
      }
      bool masked = false;
      for (auto l : rule.labels) masked = masked || l == key;
      out += masked ? std::string(kMask) : value;
      out += '"';
      i = j + 1;
      if (i < line.size() && line[i] == ',') out += line[i++];
    }
    if (i < line.size()) out += line[i++];  // '}'
  }
  out += ' ';
  out += kMask;
  return out;
}

std::string mask_page(const std::string& page) {
  std::string out;
  size_t pos = 0;
  while (pos < page.size()) {
    size_t eol = page.find('\n', pos);
    if (eol == std::string::npos) eol = page.size();
    std::string_view line(page.data() + pos, eol - pos);
    pos = eol + 1;
    if (line.empty() || line[0] == '#') {
      out.append(line);
    } else {
      size_t name_end = line.find_first_of("{ ");
      const MaskRule* rule = rule_for(line.substr(0, name_end));
      if (rule) {
        out += mask_line(line, *rule);
      } else {
        out.append(line);
      }
    }
    out += '\n';
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t eol = s.find('\n', pos);
    if (eol == std::string::npos) eol = s.size();
    v.emplace_back(s.substr(pos, eol - pos));
    pos = eol + 1;
  }
  return v;
}

// A readable account of how `got` differs from `want`, line by line.
std::string describe_diff(const std::string& want, const std::string& got) {
  auto w = lines_of(want), g = lines_of(got);
  std::string out;
  size_t shown = 0, wi = 0, gi = 0;
  while ((wi < w.size() || gi < g.size()) && shown < 40) {
    if (wi < w.size() && gi < g.size() && w[wi] == g[gi]) {
      ++wi;
      ++gi;
      continue;
    }
    // Resynchronise on the next line both share, if it is near.
    bool synced = false;
    for (size_t k = 1; k < 50 && !synced; ++k) {
      if (wi + k < w.size() && gi < g.size() && w[wi + k] == g[gi]) {
        for (size_t m = 0; m < k; ++m, ++shown) out += "- " + w[wi + m] + "\n";
        wi += k;
        synced = true;
      } else if (gi + k < g.size() && wi < w.size() && g[gi + k] == w[wi]) {
        for (size_t m = 0; m < k; ++m, ++shown) out += "+ " + g[gi + m] + "\n";
        gi += k;
        synced = true;
      }
    }
    if (!synced) {
      if (wi < w.size()) out += "- " + w[wi++] + "\n";
      if (gi < g.size()) out += "+ " + g[gi++] + "\n";
      ++shown;
    }
  }
  if (shown >= 40) out += "... (more differences)\n";
  return out;
}

// The page with the fixture tree's absolute path (in rapl's path labels, which
// name the zone directory under --path.sysfs) written as "<fixtures>/", so the
// golden file does not depend on where the checkout lies.
std::string relative_to_fixtures(std::string page) {
  const std::string fix = llmon::testing::fixture("");
  for (size_t pos = page.find(fix); pos != std::string::npos; pos = page.find(fix, pos + 1))
    page.replace(pos, fix.size(), "<fixtures>/");
  return page;
}

std::string render_fixture_page() {
  const std::string fix = llmon::testing::fixture("");
  std::vector<std::string> args = {"agent", "--path.procfs=" + fix + "proc", "--path.sysfs=" + fix + "sys",
                                   "--path.rootfs=" + fix + "rootfs",
                                   // The fixture host has no NVIDIA stack, whatever the test machine has.
                                   "--nvml.library=" + fix + "no-such-dir/libnvidia-ml.so.1"};
  args.push_back("--path.udev.data=" + fix + "udev/data");  // an unknown flag would fail load()
  auto settings = config::load(args, {});
  EXPECT_TRUE(settings.has_value()) << settings.error();
  if (!settings) return "";
  base::ManualClock clock(1000);
  base::Logger log(base::LogLevel::kError, stderr);
  auto collectors = enabled_collectors(*settings, clock, log);
  EXPECT_FALSE(collectors.empty());
  collector::Scheduler sched(std::move(collectors), clock, log, 1000);
  sched.run_cycle(1000);
  clock.set_ms(2000);
  model::SnapshotPtr snap = sched.run_cycle(2000);
  EXPECT_NE(snap, nullptr);
  if (!snap) return "";
  std::string page;
  exposition::write_page(*snap, exposition::Format::kText004, page);
  return page;
}

TEST(GoldenMetrics, MaskKeepsLabelsAndHidesValues) {
  std::string page =
      "# HELP node_uname_info x\n# TYPE node_uname_info gauge\n"
      "node_uname_info{machine=\"x86_64\",nodename=\"a b\\\"c\"} 1\n"
      "node_filesystem_size_bytes{device=\"/dev/sda1\",mountpoint=\"/srv/with space\"} 1.2e+10\n"
      "node_load1 0.5\nnode_time_seconds 2\n";
  EXPECT_EQ(mask_page(page),
            "# HELP node_uname_info x\n# TYPE node_uname_info gauge\n"
            "node_uname_info{machine=\"<masked>\",nodename=\"<masked>\"} <masked>\n"
            "node_filesystem_size_bytes{device=\"/dev/sda1\",mountpoint=\"/srv/with space\"} <masked>\n"
            "node_load1 0.5\nnode_time_seconds <masked>\n");
}

TEST(GoldenMetrics, FixtureTreePageMatchesGolden) {
  const std::string path = llmon::testing::source_dir() + "/tests/golden/fixture_metrics.txt";
  std::string got = mask_page(relative_to_fixtures(render_fixture_page()));
  ASSERT_FALSE(got.empty());
  // Rendering the same tree again gives the same masked page (nothing
  // non-deterministic slipped past the mask).
  ASSERT_EQ(got, mask_page(relative_to_fixtures(render_fixture_page()))) << "the fixture page is not deterministic";

  if (llmon::testing::update_golden()) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr) << "cannot write " << path;
    ASSERT_EQ(std::fwrite(got.data(), 1, got.size(), f), got.size());
    std::fclose(f);
    GTEST_SKIP() << "rewrote " << path << "; review its diff";
  }
  auto want = base::read_file(path);
  ASSERT_TRUE(want.has_value()) << want.status().message()
                                << " (generate it with LLMON_UPDATE_GOLDEN=1 and review the result)";
  EXPECT_TRUE(*want == got) << "the page differs from " << path << " (- golden, + now):\n"
                            << describe_diff(*want, got)
                            << "If the change is intended, rerun with LLMON_UPDATE_GOLDEN=1 and review the diff.";
}

}  // namespace
}  // namespace llmon::app
