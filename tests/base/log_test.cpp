// base::Logger writes logfmt as go-kit does (github.com/go-logfmt/logfmt):
// one line per record whatever the values hold.
#include "base/log.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace llmon::base {
namespace {

// The line a logger writes for one record, without its "ts=... " prefix.
std::string logged(std::string_view msg, Logger::Fields fields) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  EXPECT_NE(f, nullptr);
  {
    Logger log(LogLevel::kDebug, f);
    log.warn(msg, fields);
  }
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  size_t level = out.find("level=");
  return level == std::string::npos ? out : out.substr(level);
}

TEST(LoggerTest, ValuesAreQuotedAndEscapedAsLogfmt) {
  EXPECT_EQ(logged("started", {{"port", "9100"}}), "level=warn msg=started port=9100\n");
  EXPECT_EQ(logged("two words", {{"k", ""}}), "level=warn msg=\"two words\" k=\"\"\n");
  EXPECT_EQ(logged("m", {{"k", "a=b"}, {"q", "say \"hi\""}, {"b", "back\\slash x"}}),
            "level=warn msg=m k=\"a=b\" q=\"say \\\"hi\\\"\" b=\"back\\\\slash x\"\n");
  // A backslash alone does not need quotes (go-logfmt leaves it as is).
  EXPECT_EQ(logged("m", {{"path", "C:\\x"}}), "level=warn msg=m path=C:\\x\n");
}

TEST(LoggerTest, ControlCharactersNeverBreakTheLine) {
  EXPECT_EQ(logged("m", {{"k", "a\nb"}}), "level=warn msg=m k=\"a\\nb\"\n");
  EXPECT_EQ(logged("m", {{"k", "a\rb"}}), "level=warn msg=m k=\"a\\rb\"\n");
  EXPECT_EQ(logged("m", {{"k", "a\tb"}}), "level=warn msg=m k=\"a\\tb\"\n");
  EXPECT_EQ(logged("m", {{"k", std::string_view("a\0b\x1b", 4)}}), "level=warn msg=m k=\"a\\u0000b\\u001b\"\n");
  // A forged record in a value stays inside the value.
  std::string line = logged("m", {{"user", "x\r\nts=0 level=error msg=forged"}});
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  EXPECT_EQ(line.find('\r'), std::string::npos) << line;
}

}  // namespace
}  // namespace llmon::base
