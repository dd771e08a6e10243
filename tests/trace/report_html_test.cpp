// The HTML report (trace/report_html.h): a golden page for a fixture
// (LLMON_UPDATE_GOLDEN=1 rewrites tests/golden/trace/one_step.report.html),
// the embedded JSON parsing back to the --json document whatever the trace's
// strings hold, and nothing in the page that would be fetched. That the page
// draws the numbers in a browser is tests/integration/trace_report_browser_test.sh.
#include "trace/report_html.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/test_paths.h"
#include "trace/analysis.h"
#include "trace/load.h"
#include "trace/report_json.h"

namespace llmon::trace {
namespace {

std::string report_of(const std::string& name) {
  ParseStats stats;
  auto data = load_trace_file(testing::fixture("traces/" + name), &stats);
  EXPECT_TRUE(data) << data.error();
  FileReport f;
  f.path = name;  // not the absolute path: the page must not depend on the checkout
  f.bytes = stats.bytes;
  f.report = analyze(*data);
  f.data = std::move(*data);
  return report_json({f}, 0.3);
}

// The text of <script id="report-data">.
std::string embedded(const std::string& html) {
  const std::string open = "<script id=\"report-data\" type=\"application/json\">";
  size_t a = html.find(open);
  EXPECT_NE(a, std::string::npos);
  a += open.size();
  size_t b = html.find("</script>", a);
  EXPECT_NE(b, std::string::npos);
  return html.substr(a, b - a);
}

TEST(TraceReportHtml, GoldenPageForAFixture) {
  std::string html = report_html(report_of("one_step.json"));
  std::string path = testing::source_dir() + "/tests/golden/trace/one_step.report.html";
  if (testing::update_golden()) std::ofstream(path, std::ios::binary) << html;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " missing: run with LLMON_UPDATE_GOLDEN=1";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(want.str(), html) << "regenerate with LLMON_UPDATE_GOLDEN=1 and review the diff";
}

TEST(TraceReportHtml, EmbedsTheJsonDocumentUnchanged) {
  std::string json = report_of("two_steps_ns.json");
  std::string html = report_html(json);
  EXPECT_EQ(nlohmann::json::parse(embedded(html)), nlohmann::json::parse(json));
  EXPECT_EQ(html.find("{{LLMON_TRACE_REPORT_JSON}}"), std::string::npos);
}

TEST(TraceReportHtml, NoTraceStringCanEndTheScript) {
  nlohmann::json doc{{"schema", 1},
                     {"ranks", {{{"file", "x</script><script>alert(1)</script>"}, {"note", "a & b <!-- c -->"}}}}};
  std::string json = doc.dump();
  std::string html = report_html(json);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<!-- c"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(embedded(html)), doc);
}

TEST(TraceReportHtml, SelfContained) {
  std::string_view page = report_page_template();
  ASSERT_FALSE(page.empty());
  // The only URL is the SVG namespace; no external scripts, styles, fonts or images.
  size_t n = 0;
  for (size_t at = page.find("http://"); at != std::string_view::npos; at = page.find("http://", at + 1), ++n)
    EXPECT_EQ(page.substr(at, 26), "http://www.w3.org/2000/svg") << page.substr(at, 60);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(page.find("https:"), std::string_view::npos);
  EXPECT_EQ(page.find("//cdn"), std::string_view::npos);
  for (std::string_view bad : {"src=", "href=", "@import", "url(", "fetch(", "XMLHttpRequest", "WebSocket"})
    EXPECT_EQ(page.find(bad), std::string_view::npos) << bad;
  EXPECT_NE(page.find("default-src 'none'"), std::string_view::npos);
}

}  // namespace
}  // namespace llmon::trace
