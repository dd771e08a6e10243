// The capture report route's core (trace/capture/capture_report.h): only base
// names of .json/.json.gz files are accepted, symlinks and non-regular files
// are refused, a trace in the directory gives its HTML page, a broken one 422.
#include "trace/capture/capture_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/test_paths.h"

namespace llmon::trace::capture {
namespace {

namespace fs = std::filesystem;

TEST(CaptureReport, NamesThatAreNotBaseNamesOfTraces) {
  EXPECT_TRUE(capture_file_name_ok("gpu01_4978_20261203T164810.773Z.json.gz"));
  EXPECT_TRUE(capture_file_name_ok("manual.json"));
  for (const char* bad : {"", "..", ".json", "../x.json", "a/b.json", "/etc/passwd", "x..json", "captures.jsonl",
                          "x.json.gz/", "a\\b.json", "a\nb.json", "x.txt"})
    EXPECT_FALSE(capture_file_name_ok(bad)) << bad;
  EXPECT_FALSE(capture_file_name_ok(std::string("a\0b.json", 8)));
  EXPECT_FALSE(capture_file_name_ok(std::string(300, 'a') + ".json"));
}

TEST(CaptureReport, OnlyRegularFilesOfTheDirectory) {
  fs::path dir = fs::temp_directory_path() / ("llmon-capture-report-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(testing::fixture("traces/one_step.json"), dir / "good.json");
  fs::copy_file(testing::fixture("traces/two_steps_ns.json.gz"), dir / "good.json.gz");
  std::ofstream(dir / "broken.json") << "{\"traceEvents\": [{\"ph\": ";
  fs::create_symlink(testing::fixture("traces/one_step.json"), dir / "link.json");
  fs::create_directory(dir / "dir.json");

  ReportPage ok = capture_report_page(dir.string(), "good.json");
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.content_type, "text/html; charset=utf-8");
  EXPECT_NE(ok.body.find("id=\"report-data\""), std::string::npos);
  EXPECT_NE(ok.body.find("aten::layer_norm"), std::string::npos);
  EXPECT_NE(ok.body.find("\"file\": \"good.json\""), std::string::npos);  // not the directory's path
  EXPECT_EQ(capture_report_page(dir.string(), "good.json.gz").status, 200);
  EXPECT_EQ(capture_report_page(dir.string(), "broken.json").status, 422);
  EXPECT_EQ(capture_report_page(dir.string(), "link.json").status, 404);  // a symlink, even to a trace
  EXPECT_EQ(capture_report_page(dir.string(), "dir.json").status, 404);
  EXPECT_EQ(capture_report_page(dir.string(), "missing.json").status, 404);
  EXPECT_EQ(capture_report_page(dir.string(), "../good.json").status, 400);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace llmon::trace::capture
