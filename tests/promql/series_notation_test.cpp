// Series notation (src/promql/series_notation.h): expansion, numbers, gaps,
// stale markers, descriptors with Go string escapes, and the column of every
// error on malformed input.
#include "promql/series_notation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace llmon::promql {
namespace {

// Renders a sequence compactly: "1 3 _ stale NaN".
std::string render(const std::vector<SequenceValue>& vs) {
  std::string out;
  for (const SequenceValue& v : vs) {
    if (!out.empty()) out += ' ';
    if (v.omitted) {
      out += '_';
    } else if (model::is_stale(v.value)) {
      out += "stale";
    } else if (std::isnan(v.value)) {
      out += "NaN";
    } else {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", v.value);
      out += buf;
    }
  }
  return out;
}

std::string values(std::string_view text) {
  auto r = parse_series_values(text);
  if (!r) return "ERROR " + r.error();
  return render(*r);
}

std::string error_of(std::string_view text) {
  auto r = parse_series_values(text);
  return r ? "no error: " + render(*r) : r.error();
}

std::string labels_error(std::string_view text) {
  auto r = parse_series_labels(text);
  return r ? "no error: " + r->to_string() : r.error();
}

model::Labels L(std::vector<model::Label> pairs) {
  return *model::Labels::make(std::move(pairs));
}

TEST(SeriesNotation, ExpandingSequences) {
  EXPECT_EQ(values("1+2x3"), "1 3 5 7");
  EXPECT_EQ(values("1-2x3"), "1 -1 -3 -5");
  EXPECT_EQ(values("1x3"), "1 1 1 1");
  EXPECT_EQ(values("1+0x3"), "1 1 1 1");
  EXPECT_EQ(values("-1+1x2"), "-1 0 1");
  EXPECT_EQ(values("+5-1x2"), "5 4 3");
  EXPECT_EQ(values("0x3"), "0 0 0 0");  // not hex: zero repeated
  EXPECT_EQ(values("7x0"), "7");
  EXPECT_EQ(values("2+3x0"), "2");
  EXPECT_EQ(values("1.5e1+0.5x2"), "15 15.5 16");
}

TEST(SeriesNotation, AccumulatesLikePrometheus) {
  // Prometheus adds the step repeatedly; 0.1 ten times is not exactly 1.
  auto r = parse_series_values("0+0.1x10");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 11u);
  double acc = 0;
  for (int i = 0; i < 10; ++i) acc += 0.1;
  EXPECT_EQ(std::memcmp(&(*r)[10].value, &acc, sizeof acc), 0);
  EXPECT_NE((*r)[10].value, 1.0);
}

TEST(SeriesNotation, GapsAndStale) {
  EXPECT_EQ(values("_"), "_");
  EXPECT_EQ(values("_x3"), "_ _ _");  // N gaps, not N+1
  EXPECT_EQ(values("_x0"), "");
  EXPECT_EQ(values("1 _ 2 _x2 3"), "1 _ 2 _ _ 3");
  auto r = parse_series_values("1 stale 2");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_TRUE(model::is_stale((*r)[1].value));
  EXPECT_FALSE((*r)[1].omitted);
  EXPECT_EQ(values("STALE"), "stale");
}

TEST(SeriesNotation, Numbers) {
  EXPECT_EQ(values("Inf -Inf +Inf inf INF"), "inf -inf inf inf inf");
  EXPECT_EQ(values("NaN nan -NaN"), "NaN NaN NaN");
  EXPECT_EQ(values("1e3 1E-2 2.5e+1 .5 3."), "1000 0.01 25 0.5 3");
  EXPECT_EQ(values("010 0 007 089"), "8 0 7 89");  // Go ParseInt base 0: leading 0 is octal
  EXPECT_EQ(values("99999999999999999999"), "1e+20");
  EXPECT_EQ(values("1e-400"), "0");  // underflow rounds to 0 as in Go
  EXPECT_EQ(values("Inf+1x1 NaNx1"), "ERROR column 9: unexpected \"NaNx1\", expected a number");
  EXPECT_EQ(values("-Inf-0x1"), "-inf -inf");
  EXPECT_EQ(values("  1\t2  \n3  "), "1 2 3");
  EXPECT_EQ(values(""), "");
}

TEST(SeriesNotation, ValueErrorsNameTheColumn) {
  EXPECT_EQ(error_of("1 2 abc"), "column 5: unexpected \"abc\", expected a number");
  EXPECT_EQ(error_of("1e400"), "column 1: bad number: \"1e400\" (not a finite float64)");
  EXPECT_EQ(error_of("1e"), "column 1: bad number: \"1e\" (not a finite float64)");
  EXPECT_EQ(error_of("0x1F"), "column 3: invalid repetition in series values: \"1F\" (expected a count)");
  EXPECT_EQ(error_of("12ab"), "column 1: bad number syntax: \"12ab\"");
  EXPECT_EQ(error_of("1+2"), "column 1: missing \"x<count>\" after \"1+2\"");
  EXPECT_EQ(error_of("1+2y3"), "column 3: bad number syntax: \"2y3\"");
  EXPECT_EQ(error_of("1+2+3x1"),
            "column 4: unexpected \"+3x1\" in series values, expected \"x<count>\", \"+\", \"-\" or a space");
  EXPECT_EQ(error_of("1x"), "column 3: invalid repetition in series values: \"\" (expected a count)");
  EXPECT_EQ(error_of("1x-2"), "column 3: invalid repetition in series values: \"-2\" (expected a count)");
  EXPECT_EQ(error_of("1x2.5"), "column 3: invalid repetition in series values: \"2.5\" (expected a count)");
  EXPECT_EQ(error_of("1--2x3"), "column 3: unexpected character \"-\", expected a number");
  EXPECT_EQ(error_of("  _3"), "column 4: unexpected \"3\" after \"_\", expected \"x<count>\"");
  EXPECT_EQ(error_of("stalex3"), "column 1: unexpected \"stalex3\", expected a number");
  EXPECT_EQ(error_of("-stale"), "column 2: unexpected \"stale\", expected a number");
  EXPECT_EQ(error_of("+"), "column 2: unexpected end of item, expected a number");
  EXPECT_EQ(error_of("1 %"), "column 3: unexpected character \"%\", expected a number");
  EXPECT_EQ(error_of("1:"), "column 1: bad number syntax: \"1:\"");
  EXPECT_EQ(error_of("1x99999999999999999999"),
            "column 3: invalid repetition in series values: \"99999999999999999999\" (expected a count)");
}

TEST(SeriesNotation, ExpansionIsCapped) {
  auto r = parse_series_values("1x1000000");  // 1 000 001 points
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "column 1: series expands to more than 1000000 values");
  EXPECT_FALSE(parse_series_values("_x1000001"));
  EXPECT_FALSE(parse_series_values("_x600000 1x600000"));
  auto ok = parse_series_values("_x999999 1");
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(ok->size(), kMaxSeriesValues);
}

TEST(SeriesNotation, Descriptors) {
  auto r = parse_series_description("http_requests{job=\"api\", instance='a:1'} 1+1x2 _ stale");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->labels, L({{"__name__", "http_requests"}, {"job", "api"}, {"instance", "a:1"}}));
  EXPECT_EQ(render(r->values), "1 2 3 _ stale");

  auto bare = parse_series_description("  up");
  ASSERT_TRUE(bare) << bare.error();
  EXPECT_EQ(bare->labels, L({{"__name__", "up"}}));
  EXPECT_TRUE(bare->values.empty());

  auto only_labels = parse_series_labels("{__name__=\"x:y\",a=\"1\",}");
  ASSERT_TRUE(only_labels) << only_labels.error();
  EXPECT_EQ(*only_labels, L({{"__name__", "x:y"}, {"a", "1"}}));

  auto keyword = parse_series_labels("sum{by=\"offset\"}");
  ASSERT_TRUE(keyword) << keyword.error();
  EXPECT_EQ(*keyword, L({{"__name__", "sum"}, {"by", "offset"}}));

  auto empty = parse_series_labels("{}");
  ASSERT_TRUE(empty) << empty.error();
  EXPECT_TRUE(empty->empty());

  // An empty value means "label absent".
  auto dropped = parse_series_labels("m{a=\"\", b=\"2\"}");
  ASSERT_TRUE(dropped) << dropped.error();
  EXPECT_EQ(*dropped, L({{"__name__", "m"}, {"b", "2"}}));

  // Prometheus 3 quoted names.
  auto utf8 = parse_series_labels("{\"my.metric\", \"a.b\"=\"c\"}");
  ASSERT_TRUE(utf8) << utf8.error();
  EXPECT_EQ(*utf8, L({{"__name__", "my.metric"}, {"a.b", "c"}}));
}

TEST(SeriesNotation, GoStringEscapes) {
  auto r =
      parse_series_labels(R"(m{a="q\"\\\n\t", b='it\'s', c=`raw\n"`, d="\x41\101\u00e9\U0001F600", e="\a\b\f\r\v"})");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->get("a"), "q\"\\\n\t");
  EXPECT_EQ(r->get("b"), "it's");
  EXPECT_EQ(r->get("c"), "raw\\n\"");
  EXPECT_EQ(r->get("d"), "AA\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(r->get("e"), "\a\b\f\r\v");
}

TEST(SeriesNotation, DescriptorErrorsNameTheColumn) {
  EXPECT_EQ(labels_error("m{a=\"1\""), "column 8: unexpected end of input inside braces");
  EXPECT_EQ(labels_error("m{a=\"1"), "column 5: unterminated quoted string");
  EXPECT_EQ(labels_error("m{a=`1"), "column 5: unterminated raw string");
  EXPECT_EQ(labels_error("m{a!=\"1\"}"), "column 4: unexpected \"!=\" in label set, expected \"=\"");
  EXPECT_EQ(labels_error("m{a=~\"1\"}"), "column 4: unexpected \"=~\" in label set, expected \"=\"");
  EXPECT_EQ(labels_error("m{a=1}"), "column 5: expected a quoted label value after \"a=\"");
  EXPECT_EQ(labels_error("m{1a=\"x\"}"), "column 3: unexpected \"1\" in label set, expected a label name or \"}\"");
  EXPECT_EQ(labels_error("m{a=\"x\" b=\"y\"}"), "column 9: unexpected \"b\" in label set, expected \",\" or \"}\"");
  EXPECT_EQ(labels_error("m{a=\"\\q\"}"), "column 6: unknown escape sequence \"\\q\"");
  EXPECT_EQ(labels_error("m{a=\"\\xZZ\"}"), "column 8: illegal character \"Z\" in escape sequence");
  EXPECT_EQ(labels_error("m{a=\"\\'\"}"), "column 6: unknown escape sequence \"\\'\"");
  EXPECT_EQ(labels_error("m{a=\"\\uD800\"}"), "column 6: escape sequence is an invalid Unicode code point");
  EXPECT_EQ(labels_error("m{a=\"\\400\"}"), "column 6: escape sequence is an invalid Unicode code point");
  EXPECT_EQ(labels_error("m{a=\"\\xff\"}"), "column 5: string is not valid UTF-8");
  EXPECT_EQ(labels_error("m{a=\"\xff\"}"), "column 5: string is not valid UTF-8");
  EXPECT_EQ(labels_error("m{a=\"1\", a=\"2\"}").substr(0, 10), "column 1: ");
  EXPECT_EQ(labels_error("m{__name__=\"n\"}").substr(0, 10), "column 1: ");  // the name twice
  EXPECT_EQ(labels_error("NaN"), "column 1: unexpected number \"NaN\", expected a metric name");
  EXPECT_EQ(labels_error(""), "column 1: expected a metric name or \"{\"");
  EXPECT_EQ(labels_error("m{a=\"1\"} x"), "column 10: unexpected \"x\" after the series descriptor");
  EXPECT_EQ(labels_error("m{a=\"line\nbreak\"}"), "column 5: unterminated quoted string");

  auto d = parse_series_description("m{a=\"1\"}1 2");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error(), "column 9: unexpected \"1\" after the series descriptor, expected a space");
  auto v = parse_series_description("m{a=\"1\"} 1 2 z");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error(), "column 14: unexpected \"z\", expected a number");
}

TEST(SeriesNotation, TruncatedAndBinaryInputNeverCrash) {
  const std::string line = "metric{a=\"x\\u00e9\", b='y'} 1+2x3 _x2 stale -Inf";
  ASSERT_TRUE(parse_series_description(line));
  for (size_t n = 0; n < line.size(); ++n) {
    auto r = parse_series_description(line.substr(0, n));  // must return, ok or not
    if (!r) {
      EXPECT_EQ(r.error().rfind("column ", 0), 0u) << r.error();
    }
  }
  std::string binary = "m{a=\"";
  for (int c = 0; c < 256; ++c) binary += static_cast<char>(c);
  EXPECT_FALSE(parse_series_description(binary));
  EXPECT_FALSE(parse_series_values(std::string("1\0002", 3)));
}

}  // namespace
}  // namespace llmon::promql
