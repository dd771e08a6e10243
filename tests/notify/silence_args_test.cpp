// `llmon alerts silence add` arguments, amtool-compatible.
#include "notify/silences/silence_args.h"

#include <gtest/gtest.h>

namespace llmon::notify {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;

Expected<Silence> parse(std::vector<std::string> args) {
  return parse_silence_add_args(args, kT0, "bob");
}

TEST(SilenceArgs, AmtoolStyle) {
  auto s = parse({"alertname=GpuHot", "instance=~gpu[0-3]", "--comment=fan swap", "-d", "2h"});
  ASSERT_TRUE(s.has_value()) << s.error();
  EXPECT_EQ(matchers_to_string(s->matchers), R"({alertname="GpuHot",instance=~"gpu[0-3]"})");
  EXPECT_EQ(s->starts_at_ms, kT0);
  EXPECT_EQ(s->ends_at_ms, kT0 + 2 * 3'600'000);
  EXPECT_EQ(s->created_by, "bob");
  EXPECT_EQ(s->comment, "fan swap");
  EXPECT_TRUE(s->id.empty());

  // A bare first argument means alertname=<arg>.
  s = parse({"GpuHot", "job!=x", "-c", "c", "-a", "alice"});
  ASSERT_TRUE(s.has_value()) << s.error();
  EXPECT_EQ(matchers_to_string(s->matchers), R"({alertname="GpuHot",job!="x"})");
  EXPECT_EQ(s->created_by, "alice");
  EXPECT_EQ(s->ends_at_ms, kT0 + 3'600'000);  // default 1h

  // --start/--end, --end wins over --duration; short flags glued; `--`.
  s = parse({"--start", "2023-11-14T23:13:20Z", "--end=2023-11-15T00:13:20+00:00", "-d5m", "-cx", "--author=carol",
             "--", "-weird=1"});
  ASSERT_TRUE(s.has_value()) << s.error();  // after `--`, "-weird=1" is positional: alertname="-weird=1"
  EXPECT_EQ(matchers_to_string(s->matchers), R"({alertname="-weird=1"})");
  s = parse({"--start", "2023-11-14T23:13:20Z", "--end=2023-11-15T00:13:20+00:00", "-d5m", "-cx", "--author=carol",
             "--", "x=\"-1\""});
  ASSERT_TRUE(s.has_value()) << s.error();
  EXPECT_EQ(s->starts_at_ms, kT0 + 3'600'000);
  EXPECT_EQ(s->ends_at_ms, kT0 + 2 * 3'600'000);
  EXPECT_EQ(s->comment, "x");
  EXPECT_EQ(s->created_by, "carol");
  EXPECT_EQ(s->matchers[0].value(), "-1");

  s = parse({"a=b", "--no-require-comment"});
  ASSERT_TRUE(s.has_value()) << s.error();
  EXPECT_EQ(s->comment, "");
}

TEST(SilenceArgs, Errors) {
  struct Case {
    std::vector<std::string> args;
    const char* error;
  } cases[] = {
      {{"-c", "x"}, "no matchers specified"},
      {{"a=b"}, "comment required by config"},
      {{"a=b", "-c", "x", "-d", "0"}, "silence duration must be greater than 0"},
      {{"a=b", "-c", "x", "-d", "1x"}, "--duration: not a valid duration string: \"1x\""},
      {{"a=b", "-c", "x", "--end", "2023-11-14T21:00:00Z"}, "silence cannot start after it ends"},
      {{"a=b", "-c", "x", "--start", "now"}, "--start: invalid RFC 3339 time \"now\""},
      {{"a=b", "-c", "x", "--bogus"}, "unknown long flag '--bogus'"},
      {{"a=b", "-x"}, "unknown short flag '-x'"},
      {{"a=b", "-c"}, "expected argument for flag '-c'"},
      {{"a=b", "--comment"}, "expected argument for flag '--comment'"},
      {{"a=b", "c", "-c", "x"}, "bad matcher format: c"},
      {{"a=b", "--require-comment=maybe"}, "--require-comment: expected true or false"},
  };
  for (const auto& c : cases) {
    auto s = parse(c.args);
    ASSERT_FALSE(s.has_value()) << c.error;
    EXPECT_EQ(s.error().rfind(c.error, 0), 0u) << s.error();
  }
}

}  // namespace
}  // namespace llmon::notify
