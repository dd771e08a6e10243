// The text exposition parser on literal lines (valid, malformed, truncated,
// binary), and a differential check against our own writer: every sample line
// of the /metrics goldens parses, and writing the parsed sample back with
// text_writer's escaping and number formatting gives the line again.
#include "exposition/text_parser.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "base/strings.h"
#include "exposition/text_writer.h"
#include "support/test_paths.h"

namespace llmon::exposition {
namespace {

struct Parsed {
  LineKind kind;
  std::string name;
  std::string series_text;
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
  std::optional<int64_t> ts;
  TextParseError err;
};

Parsed parse(std::string_view line, int line_no = 1) {
  TextSample s;
  std::string scratch;
  Parsed p;
  p.kind = parse_text_line(line, line_no, s, scratch, p.err);
  if (p.kind == LineKind::kSample) {
    p.name = s.name;
    p.series_text = s.series_text;
    for (const auto& l : s.labels) p.labels.emplace_back(l.name, l.value);
    p.value = s.value;
    p.ts = s.timestamp_ms;
  }
  return p;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

// Bytes made readable for failure messages.
std::string show(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

TEST(TextParser, PlainSampleWithAndWithoutTimestamp) {
  Parsed p = parse("node_load1 0.21");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.name, "node_load1");
  EXPECT_EQ(p.series_text, "node_load1");
  EXPECT_TRUE(p.labels.empty());
  EXPECT_EQ(p.value, 0.21);
  EXPECT_FALSE(p.ts.has_value());

  p = parse("http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.name, "http_requests_total");
  EXPECT_EQ(p.series_text, "http_requests_total{method=\"post\",code=\"200\"}");
  EXPECT_EQ(p.labels, (Pairs{{"method", "post"}, {"code", "200"}}));
  EXPECT_EQ(p.value, 1027);
  ASSERT_TRUE(p.ts.has_value());
  EXPECT_EQ(*p.ts, 1395066363000);
}

TEST(TextParser, NamesWithColonsAndUnderscores) {
  Parsed p = parse("job:request_rate:5m{_x=\"1\"} 3");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.name, "job:request_rate:5m");
  EXPECT_EQ(p.labels, (Pairs{{"_x", "1"}}));
  EXPECT_EQ(parse(":leading_colon 1").kind, LineKind::kSample);
  EXPECT_EQ(parse("_ 1").kind, LineKind::kSample);
  EXPECT_EQ(parse("9starts_with_digit 1").kind, LineKind::kError);
  EXPECT_EQ(parse("x{a:b=\"1\"} 1").kind, LineKind::kError) << "':' is not allowed in label names";
  EXPECT_EQ(parse("x{1a=\"1\"} 1").kind, LineKind::kError);
}

TEST(TextParser, SkipsCommentsAndBlankLines) {
  for (const char* line : {"", "   ", "\t", "\r", "# HELP x Some help.", "# TYPE x counter", "#", "# anything else",
                           "   # indented comment", "#\xff\xfe binary comment"}) {
    EXPECT_EQ(parse(line).kind, LineKind::kSkipped) << show(line);
  }
}

TEST(TextParser, CrlfAndSurroundingWhitespace) {
  Parsed p = parse("  a{b=\"c\"}  1.5   42  \r");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.value, 1.5);
  EXPECT_EQ(p.ts, 42);
  // Whitespace inside the braces and between name and brace, as Prometheus allows.
  p = parse("a { b = \"c\" , d=\"e\" } 2");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.labels, (Pairs{{"b", "c"}, {"d", "e"}}));
  EXPECT_EQ(p.series_text, "a { b = \"c\" , d=\"e\" }");
  // Tabs separate tokens as well as spaces.
  p = parse("a\t7\t8");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.value, 7);
  EXPECT_EQ(p.ts, 8);
  // Only one trailing CR is a line ending; one inside the line is an error.
  EXPECT_EQ(parse("a 1\r\r").kind, LineKind::kError);
}

TEST(TextParser, EmptyBracesAndTrailingComma) {
  Parsed p = parse("up{} 1");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_TRUE(p.labels.empty());
  EXPECT_EQ(p.series_text, "up{}");
  p = parse("up{job=\"a\",} 1");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.labels, (Pairs{{"job", "a"}}));
  EXPECT_EQ(parse("up{,} 1").kind, LineKind::kError);
  EXPECT_EQ(parse("up{job=\"a\",,} 1").kind, LineKind::kError);
  // No whitespace needed between '}' and the value: the tokens cannot merge.
  p = parse("up{job=\"a\"}1");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.value, 1);
}

TEST(TextParser, LabelValueEscapes) {
  Parsed p = parse(R"(x{path="C:\\dir\\file",q="say \"hi\"",nl="a\nb",other="\t\x"} 1)");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.labels, (Pairs{{"path", "C:\\dir\\file"}, {"q", "say \"hi\""}, {"nl", "a\nb"}, {"other", "\\t\\x"}}));
  // An escaped quote does not end the value; an escaped backslash before the quote does.
  p = parse(R"(x{a="\\"} 1)");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.labels, (Pairs{{"a", "\\"}}));
  EXPECT_EQ(parse(R"(x{a="\"} 1)").kind, LineKind::kError);
  // Several escaped values in one line keep their own bytes (scratch not reallocated under them).
  std::string many = "x{";
  Pairs want;
  for (int i = 0; i < 30; ++i) {
    std::string name = "l" + std::to_string(i);
    many += name + "=\"v\\\\" + std::to_string(i) + "\\n\",";
    want.emplace_back(name, "v\\" + std::to_string(i) + "\n");
  }
  many += "} 1";
  p = parse(many);
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.labels, want);
}

TEST(TextParser, Utf8LabelValues) {
  Parsed p = parse("gpu_info{name=\"NVIDIA H100 80GB HBM3 \xe2\x80\x94 \xe6\xb8\xac\xe8\xa9\xa6 \xf0\x9f\x9a\x80\"} 1");
  ASSERT_EQ(p.kind, LineKind::kSample) << p.err.to_string();
  EXPECT_EQ(p.labels[0].second, "NVIDIA H100 80GB HBM3 \xe2\x80\x94 \xe6\xb8\xac\xe8\xa9\xa6 \xf0\x9f\x9a\x80");
  p = parse("x{a=\"ok\xff\"} 1");
  ASSERT_EQ(p.kind, LineKind::kError);
  EXPECT_EQ(p.err.column, 8);
  EXPECT_NE(p.err.message.find("invalid UTF-8"), std::string::npos) << p.err.message;
  EXPECT_NE(p.err.message.find("0xff"), std::string::npos) << p.err.message;
  EXPECT_EQ(parse("x{a=\"\xed\xa0\x80\"} 1").kind, LineKind::kError) << "a UTF-16 surrogate is not UTF-8";
}

TEST(TextParser, SpecialAndExponentValues) {
  struct Case {
    const char* text;
    double want;
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const Case& c : std::vector<Case>{{"+Inf", inf},
                                         {"-Inf", -inf},
                                         {"Inf", inf},
                                         {"inf", inf},
                                         {"+infinity", inf},
                                         {"-INFINITY", -inf},
                                         {"1e3", 1000},
                                         {"1E+3", 1000},
                                         {"-2.5e-3", -0.0025},
                                         {"+.5", 0.5},
                                         {"5.", 5},
                                         {"0.000", 0},
                                         {"1.7976931348623157e308", 1.7976931348623157e308},
                                         {"4.9e-324", 4.9e-324},
                                         {"1e-400", 0},
                                         {"1.6560463872e+10", 16560463872.0},
                                         {"-0", -0.0}}) {
    auto v = parse_sample_value(c.text);
    ASSERT_TRUE(v.has_value()) << c.text;
    EXPECT_EQ(std::bit_cast<uint64_t>(*v), std::bit_cast<uint64_t>(c.want)) << c.text << " -> " << *v;
  }
  for (const char* bad :
       {"",     "+",    "-",      ".",       "e3",    "1e",     "1e+", "1.2.3", "0x1p3", "0x10", "1_000", "NaNa",
        "+NaN", "-nan", "nan(1)", "infinit", "1e400", "-1e400", "1,5", "١",     "1 ",    " 1",   "\x00"}) {
    EXPECT_FALSE(parse_sample_value(bad).has_value()) << show(bad);
  }
}

TEST(TextParser, NanIsAnOrdinaryNanNotTheStaleMarker) {
  for (const char* text : {"NaN", "nan", "NAN"}) {
    auto v = parse_sample_value(text);
    ASSERT_TRUE(v.has_value()) << text;
    EXPECT_TRUE(std::isnan(*v));
    EXPECT_NE(std::bit_cast<uint64_t>(*v), 0x7ff0000000000002ull) << text;
  }
  Parsed p = parse("x NaN 5");
  ASSERT_EQ(p.kind, LineKind::kSample);
  EXPECT_TRUE(std::isnan(p.value));
}

TEST(TextParser, Timestamps) {
  EXPECT_EQ(parse("x 1 -1").ts, -1);
  EXPECT_EQ(parse("x 1 +5").ts, 5);
  EXPECT_EQ(parse("x 1 0").ts, 0);
  EXPECT_EQ(parse("x 1 9223372036854775807").ts, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parse("x 1 -9223372036854775808").ts, std::numeric_limits<int64_t>::min());
  for (const char* bad :
       {"x 1 9223372036854775808", "x 1 1.5", "x 1 1e3", "x 1 abc", "x 1 +-1", "x 1 --1", "x 1 2 3", "x 1 2 #c"}) {
    Parsed p = parse(bad);
    EXPECT_EQ(p.kind, LineKind::kError) << bad;
  }
}

TEST(TextParser, ErrorsNameLineColumnAndWhatWasExpected) {
  struct Case {
    const char* line;
    int column;
    const char* expect;  // substring of the message
  };
  for (const Case& c : std::vector<Case>{
           {"x{a=\"1\" b=\"2\"} 1", 9, "expected ',' or '}'"},
           {"x{a \"1\"} 1", 5, "expected '=' after label name \"a\""},
           {"x{a=1} 1", 5, "expected '\"' to open the value of label \"a\""},
           {"x{a=\"1} 1", 5, "not terminated"},
           {"x{a=\"1\"", 8, "expected ',' or '}'"},
           {"x{a=\"1\",a=\"2\"} 1", 9, "appears twice"},
           {"x", 2, "expected a sample value"},
           {"x{a=\"b\"}", 9, "expected a sample value after \"x{a=\\\"b\\\"}\""},
           {"x abc", 3, "expected a float value"},
           {"x 1 2 3", 7, "expected end of line after the timestamp"},
           {"x 1 zz", 5, "expected a timestamp in integer milliseconds, found \"zz\""},
           {"{a=\"b\"} 1", 1, "expected a metric name"},
           {"x-y 1", 2, "expected whitespace or '{' after metric name \"x\", found '-'"},
           {"x{", 3, "found end of line"},
           {"x\x01 1", 2, "found byte 0x01"},
       }) {
    Parsed p = parse(c.line, 7);
    ASSERT_EQ(p.kind, LineKind::kError) << c.line;
    EXPECT_EQ(p.err.line, 7) << c.line;
    EXPECT_EQ(p.err.column, c.column) << c.line << ": " << p.err.message;
    EXPECT_NE(p.err.message.find(c.expect), std::string::npos) << c.line << ": " << p.err.message;
    EXPECT_EQ(p.err.to_string().rfind("line 7, column " + std::to_string(c.column) + ": ", 0), 0u) << p.err.to_string();
  }
}

TEST(TextParser, IteratorCountsLinesAndSkipsWhatIsNotASample) {
  std::string text =
      "# HELP a Help.\n"
      "# TYPE a gauge\n"
      "a 1\n"
      "\n"
      "bad line here\n"
      "a{x=\"y\"} 2 1000\r\n"
      "b 3";  // no final newline
  TextParser p(text);
  ASSERT_EQ(p.next(), TextParser::Next::kSample);
  EXPECT_EQ(p.line_no(), 3);
  EXPECT_EQ(p.sample().name, "a");
  ASSERT_EQ(p.next(), TextParser::Next::kError);
  EXPECT_EQ(p.line_no(), 5);
  EXPECT_EQ(p.error().line, 5);
  EXPECT_EQ(p.error().column, 5);
  ASSERT_EQ(p.next(), TextParser::Next::kSample);
  EXPECT_EQ(p.line_no(), 6);
  EXPECT_EQ(p.sample().value, 2);
  EXPECT_EQ(p.sample().timestamp_ms, 1000);
  ASSERT_EQ(p.next(), TextParser::Next::kSample);
  EXPECT_EQ(p.line_no(), 7);
  EXPECT_EQ(p.sample().name, "b");
  EXPECT_EQ(p.offset(), text.size());
  EXPECT_EQ(p.next(), TextParser::Next::kEnd);
  EXPECT_EQ(p.next(), TextParser::Next::kEnd);
}

TEST(TextParser, TruncatedLinesAreErrorsAtEveryCut) {
  const std::string full = "metric_name{a=\"x\\\"y\",b=\"\xc3\xa9\"} -1.5e-3 1700000000000";
  ASSERT_EQ(parse(full).kind, LineKind::kSample);
  // Every prefix either is an error or a valid sample (cut after a complete value/timestamp
  // digit); none crashes or reads past the cut (ASan builds check the latter).
  int samples = 0;
  for (size_t n = 0; n < full.size(); ++n) {
    std::string cut = full.substr(0, n);  // own allocation: reading past it is a heap overflow
    Parsed p = parse(cut);
    if (p.kind == LineKind::kSample) ++samples;
    if (p.kind == LineKind::kError) {
      EXPECT_GE(p.err.column, 1);
      EXPECT_LE(p.err.column, static_cast<int>(n) + 1);
    }
  }
  // Cuts inside "-1.5e-3" that still parse ("-1", "-1.", "-1.5") and inside the timestamp.
  EXPECT_GE(samples, 3 + 12);
}

TEST(TextParser, BinaryGarbageIsAnErrorPerLineNeverACrash) {
  std::mt19937 rng(42);
  std::string text;
  for (int i = 0; i < 20000; ++i) text += static_cast<char>(rng() & 0xff);
  TextParser p(text);
  int lines = 0, errors = 0;
  for (auto k = p.next(); k != TextParser::Next::kEnd; k = p.next()) {
    ++lines;
    if (k == TextParser::Next::kError) {
      ++errors;
      EXPECT_EQ(p.error().line, p.line_no());
      EXPECT_FALSE(p.error().message.empty());
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_EQ(p.offset(), text.size());
  // Embedded NULs are bytes like any other.
  std::string nul("a\0b 1", 5);
  EXPECT_EQ(parse(nul).kind, LineKind::kError);
  std::string nul_value("a{b=\"x\0y\"} 1", 12);
  Parsed pv = parse(nul_value);
  ASSERT_EQ(pv.kind, LineKind::kSample) << pv.err.to_string();
  EXPECT_EQ(pv.labels[0].second, std::string("x\0y", 3));
}

TEST(NameRules, MetricAndLabelNames) {
  EXPECT_TRUE(is_valid_metric_name("a:b_c9"));
  EXPECT_FALSE(is_valid_metric_name(""));
  EXPECT_FALSE(is_valid_metric_name("1a"));
  EXPECT_FALSE(is_valid_metric_name("a-b"));
  EXPECT_TRUE(is_valid_label_name("_a9"));
  EXPECT_FALSE(is_valid_label_name("a:b"));
  EXPECT_FALSE(is_valid_label_name(""));
  EXPECT_FALSE(is_valid_label_name("a b"));
}

// ---- Differential: our /metrics goldens, parsed and written back. ----

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string write_back(const TextSample& s) {
  std::string out(s.name);
  if (!s.labels.empty()) {
    out += '{';
    for (size_t i = 0; i < s.labels.size(); ++i) {
      if (i) out += ',';
      out += s.labels[i].name;
      out += "=\"";
      append_escaped_label_value(out, s.labels[i].value);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  append_value(out, s.value);
  if (s.timestamp_ms) out += " " + std::to_string(*s.timestamp_ms);
  return out;
}

TEST(TextParserGolden, EveryGoldenSampleLineParsesAndWritesBackIdentically) {
  const std::string dir = llmon::testing::source_dir() + "/tests/golden/";
  int files = 0;
  for (const char* name :
       {"fixture_metrics.txt", "gpu_a100_mig.txt", "gpu_h100x8.txt", "gpu_legacy.txt", "gpu_r535_stride.txt"}) {
    const std::string text = read_file(dir + name);
    ASSERT_FALSE(text.empty()) << dir + name;
    ++files;
    // Goldens mask volatile sample values as "<masked>"/"<varies>" (not a
    // number): put a number in. Masked label values are ordinary strings and stay.
    std::string unmasked;
    int sample_lines = 0;
    for (std::string_view line : base::split(text, '\n')) {
      std::string l(line);
      size_t open = l.rfind(" <");
      if (!l.empty() && l.back() == '>' && open != std::string::npos &&
          l.find_first_not_of("abcdefghijklmnopqrstuvwxyz", open + 2) == l.size() - 1)
        l.replace(open, std::string::npos, " 0");
      if (!l.empty() && l[0] != '#') ++sample_lines;
      unmasked += l + "\n";
    }
    int line_no = 0, samples = 0;
    TextSample s;
    std::string scratch;
    TextParseError err;
    for (std::string_view line : base::split(unmasked, '\n')) {
      ++line_no;
      LineKind k = parse_text_line(line, line_no, s, scratch, err);
      if (k == LineKind::kSkipped) continue;
      ASSERT_EQ(k, LineKind::kSample) << name << ": " << err.to_string();
      ++samples;
      EXPECT_EQ(write_back(s), line) << name << " line " << line_no;
    }
    EXPECT_EQ(samples, sample_lines) << name;
    EXPECT_GT(samples, 10) << name;
    // The iterator agrees with line-at-a-time parsing.
    TextParser p(unmasked);
    int iter_samples = 0;
    for (auto k = p.next(); k != TextParser::Next::kEnd; k = p.next()) {
      EXPECT_EQ(k, TextParser::Next::kSample) << name << ": " << p.error().to_string();
      ++iter_samples;
    }
    EXPECT_EQ(iter_samples, samples) << name;
  }
  EXPECT_EQ(files, 5);
}

}  // namespace
}  // namespace llmon::exposition
