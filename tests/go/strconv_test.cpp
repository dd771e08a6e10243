// Go strconv/fmt behaviours the PromQL text forms depend on
// (go/strconv.h); expected strings are what Go produces.
#include "go/strconv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace llmon::go {
namespace {

TEST(GoStrconv, QuoteLikeStrconvQuote) {
  struct Case {
    std::string in;
    const char* out;
  } cases[] = {
      {"", R"("")"},
      {"plain", R"("plain")"},
      {"\t\"\\", R"("\t\"\\")"},
      {"\a\b\f\v\r\n", R"("\a\b\f\v\r\n")"},
      {std::string("\0\x01\x7f", 3), R"("\x00\x01\x7f")"},
      {"\xff\xc3", R"("\xff\xc3")"},                                         // invalid bytes
      {"caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""},  // printable runes stay
      {"\xc2\xa0\xe2\x80\x8b\xef\xbb\xbf", R"("\u00a0\u200b\ufeff")"},       // NBSP, ZWSP, BOM
      {"\xc2\x85\xe2\x80\xa8", R"("\u0085\u2028")"},
      {"\xf4\x8f\xbf\xbf\xee\x80\x80", R"("\U0010ffff\ue000")"},  // noncharacter, private use
      {"\xef\xbf\xbd", "\"\xef\xbf\xbd\""},                       // U+FFFD itself is printable
      {"'", R"("'")"},
  };
  for (const auto& c : cases) EXPECT_EQ(quote(c.in), c.out) << c.in;
  EXPECT_EQ(quote_truncated("0123456789abc", 10), R"("0123456789")");
  EXPECT_EQ(quote_truncated("\xc3\xa9\xc3\xa9", 1), "\"\xc3\xa9\"");
}

TEST(GoStrconv, QuoteRuneAndUnicodeVerb) {
  EXPECT_EQ(quote_rune('.'), "'.'");
  EXPECT_EQ(quote_rune('\''), R"('\'')");
  EXPECT_EQ(quote_rune('"'), R"('"')");
  EXPECT_EQ(quote_rune('\n'), R"('\n')");
  EXPECT_EQ(quote_rune(1), R"('\x01')");
  EXPECT_EQ(quote_rune(0xE9), "'\xc3\xa9'");
  EXPECT_EQ(quote_rune(kEof), "'\xef\xbf\xbd'");
  EXPECT_EQ(quote_rune(0x200B), R"('\u200b')");
  EXPECT_EQ(format_rune_u('q'), "U+0071 'q'");
  EXPECT_EQ(format_rune_u('"'), "U+0022 '\"'");
  EXPECT_EQ(format_rune_u(1), "U+0001");
  EXPECT_EQ(format_rune_u(0x1F600), "U+1F600 '\xf0\x9f\x98\x80'");
}

TEST(GoStrconv, FormatFloatLikeFmtV) {
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    double v;
    const char* s;
  } cases[] = {
      {0, "0"},
      {-0.0, "-0"},
      {1, "1"},
      {-1, "-1"},
      {0.5, "0.5"},
      {0.1 + 0.2, "0.30000000000000004"},
      {100000, "100000"},
      {123456, "123456"},
      {1e6, "1e+06"},
      {1234567, "1.234567e+06"},
      {123456789, "1.23456789e+08"},
      {0.0001, "0.0001"},
      {0.00001, "1e-05"},
      {1.5e-7, "1.5e-07"},
      {1e21, "1e+21"},
      {1e100, "1e+100"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {9223372036854775807.0, "9.223372036854776e+18"},
      {inf, "+Inf"},
      {-inf, "-Inf"},
      {std::nan(""), "NaN"},
  };
  for (const auto& c : cases) EXPECT_EQ(format_float(c.v), c.s) << c.s;
  EXPECT_EQ(format_float_fixed(1.5, 3), "1.500");
  EXPECT_EQ(format_float_fixed(-0.0005, 3), "-0.001");
  EXPECT_EQ(format_float_fixed(1e20, 6), "100000000000000000000.000000");
  EXPECT_EQ(format_float_fixed(inf, 6), "+Inf");
  EXPECT_EQ(format_float_fixed(std::nan(""), 6), "NaN");
}

TEST(GoStrconv, ParseNumberLikePrometheus) {
  struct Case {
    const char* s;
    double v;
  } ok[] = {{"0", 0},     {"1", 1},          {"0755", 493},          {"08", 8},
            {"0x1F", 31}, {"0XaBc", 2748},   {"1.5", 1.5},           {".5", 0.5},
            {"5.", 5},    {"1e3", 1000},     {"1E-3", 0.001},        {"1e-400", 0},
            {"1.e1", 10}, {"Inf", INFINITY}, {"infinity", INFINITY}, {"9223372036854775808", 9223372036854775808.0}};
  for (const auto& c : ok) {
    auto v = parse_number(c.s);
    ASSERT_TRUE(v) << c.s << ": " << v.error();
    EXPECT_EQ(*v, c.v) << c.s;
  }
  EXPECT_TRUE(std::isnan(*parse_number("nAn")));
  struct Bad {
    const char* s;
    const char* error;
  } bad[] = {
      {"1e", "strconv.ParseFloat: parsing \"1e\": invalid syntax"},
      {"1e+", "strconv.ParseFloat: parsing \"1e+\": invalid syntax"},
      {"0x", "strconv.ParseFloat: parsing \"0x\": invalid syntax"},
      {"0x1.8", "strconv.ParseFloat: parsing \"0x1.8\": invalid syntax"},
      {"0x8000000000000000", "strconv.ParseFloat: parsing \"0x8000000000000000\": invalid syntax"},
      {"1e400", "strconv.ParseFloat: parsing \"1e400\": value out of range"},
      {".", "strconv.ParseFloat: parsing \".\": invalid syntax"},
      {"", "strconv.ParseFloat: parsing \"\": invalid syntax"},
  };
  for (const auto& c : bad) {
    auto v = parse_number(c.s);
    ASSERT_FALSE(v) << c.s;
    EXPECT_EQ(v.error(), c.error) << c.s;
  }
}

TEST(GoStrconv, UnquoteLikePrometheusStrutil) {
  struct Case {
    const char* in;
    std::string out;
  } ok[] = {
      {R"("a\x41\101\u0041\U00000041")", "aAAAA"},
      {R"('it\'s "x"')", "it's \"x\""},
      {R"("\xff")", "\xff"},
      {"`a\\b\"`", "a\\b\""},
      {"`multi\nline\r`", "multi\nline\r"},
      {R"("\u00e9")", "\xc3\xa9"},
      {R"("")", ""},
  };
  for (const auto& c : ok) {
    auto v = unquote_prometheus(c.in);
    ASSERT_TRUE(v) << c.in;
    EXPECT_EQ(*v, c.out) << c.in;
  }
  for (const char* in : {R"("\q")", R"("a)", R"('a")", "`a`b`", R"("\U00110000")", R"("\400")", "\"a\nb\"",
                         R"("\uD800")", R"("a"b")", R"("\'")", R"('\"')", R"("\x4")", "x", ""}) {
    auto v = unquote_prometheus(in);
    EXPECT_FALSE(v) << in;
  }
}

}  // namespace
}  // namespace llmon::go
