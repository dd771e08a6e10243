// Unit tests of the alert template engine (rules/template.h): the language,
// Go's error wording, the Prometheus functions' number formatting (values
// from Prometheus's own template_test.go and Go's documentation), the query
// callback, and the execution bounds. The byte-for-byte comparison with
// Prometheus itself is template_promtool_diff_test.cpp.
#include "rules/template.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "rules/go_fmt.h"
#include "go/strconv.h"
#include "go/strings.h"
#include "rules/humanize.h"

namespace llmon::rules {
namespace {

using tmpl::Value;

const Value kData =
    tmpl::alert_template_data({{"__name__", "up"}, {"instance", "host-1.example.com:9100"}, {"job", "node"}},
                              {{"cluster", "c1"}}, "http://prom.example.com", 0.25);

std::string run(std::string_view text, const Value& data = kData, const TemplateEnv& env = {}) {
  return expand_alert_text("Test", text, data, env);
}

TEST(Template, ExpandsAlertVariables) {
  EXPECT_EQ(run("{{ $labels.instance }} of {{ $labels.job }} is at {{ $value }}"),
            "host-1.example.com:9100 of node is at 0.25");
  EXPECT_EQ(run("{{ $externalLabels.cluster }} {{ $externalURL }} [{{ $labels.missing }}]"),
            "c1 http://prom.example.com []");
  EXPECT_EQ(run("{{ .Labels }}"), "map[__name__:up instance:host-1.example.com:9100 job:node]");
}

TEST(Template, TrimMarkersAndComments) {
  EXPECT_EQ(run("a  {{- \" b \" -}}  c"), "a b c");
  EXPECT_EQ(run("x {{- /* gone */ -}}\n y"), "xy");
  EXPECT_EQ(run("{{-1}}"), "-1");  // a number, not a trim marker
}

TEST(Template, ControlStructures) {
  EXPECT_EQ(run("{{ if gt $value 0.5 }}hi{{ else if gt $value 0.1 }}mid{{ else }}lo{{ end }}"), "mid");
  EXPECT_EQ(run("{{ range $k, $v := $labels }}{{ $k }}={{ $v }};{{ end }}"),
            "__name__=up;instance=host-1.example.com:9100;job=node;");
  EXPECT_EQ(run("{{ range args }}x{{ else }}empty{{ end }}"), "empty");
  EXPECT_EQ(run("{{ range $i, $e := args 1 2 3 }}{{ if eq $i \"arg1\" }}{{ continue }}{{ end }}{{ $e }}{{ end }}"),
            "13");
  EXPECT_EQ(run("{{ range $i, $e := args 1 2 3 }}{{ if eq $i \"arg1\" }}{{ break }}{{ end }}{{ $e }}{{ end }}"), "1");
  EXPECT_EQ(run("{{ with $labels.missing }}x{{ else }}none{{ end }}"), "none");
  EXPECT_EQ(run("{{ $x := \"a\" }}{{ if true }}{{ $x := \"b\" }}{{ $x }}{{ end }}{{ $x }}"), "ba");
  EXPECT_EQ(run("{{ define \"t\" }}<{{ . }}>{{ end }}{{ template \"t\" $labels.job }}"), "<node>");
}

TEST(Template, ParseErrorsUseGoWording) {
  auto t = Template::parse("x", "{{ 1 }-}}");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error(), "template: x:1: unexpected \"}\" in operand");
  EXPECT_EQ(Template::parse("x", "a\nb\n{{ if 1 }}").error(), "template: x:3: unexpected EOF");
  EXPECT_EQ(Template::parse("x", "{{ foo }}").error(), "template: x:1: function \"foo\" not defined");
  EXPECT_EQ(Template::parse("x", "{{ $y }}").error(), "template: x:1: undefined variable \"$y\"");
  EXPECT_EQ(parse_alert_template("HighMem", "{{ }").error(),
            "error parsing template __alert_HighMem: template: __alert_HighMem:1: unexpected \"}\" in command");
}

TEST(Template, ExecutionErrorsUseGoWording) {
  // 112 bytes of $labels/$value definitions come first, as in Prometheus.
  EXPECT_EQ(run("{{ gt $value 1 }}"),
            "<error expanding template: error executing template __alert_Test: template: __alert_Test:1:115: "
            "executing \"__alert_Test\" at <gt $value 1>: error calling gt: incompatible types for comparison>");
  EXPECT_EQ(run("x\n  {{ .Foo }}"),
            "<error expanding template: error executing template __alert_Test: template: __alert_Test:2:5: "
            "executing \"__alert_Test\" at <.Foo>: can't evaluate field Foo in type struct { Labels "
            "map[string]string; ExternalLabels map[string]string; ExternalURL string; Value float64 }>");
  auto t = Template::parse("n", "{{ index 1 1 }}");
  ASSERT_TRUE(t);
  auto out = t->execute(kData, {});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error(),
            "template: n:1:3: executing \"n\" at <index 1 1>: error calling index: can't index item of "
            "type int");
}

TEST(Template, ParseOnceExecuteMany) {
  auto t = parse_alert_template("A", "{{ $labels.job }}={{ humanize $value }}");
  ASSERT_TRUE(t);
  for (double v : {1.0, 1500.0, 2e6}) {
    auto out = expand(*t, tmpl::alert_template_data({{"job", "j"}}, {}, "", v), {});
    ASSERT_TRUE(out) << out.error();
    EXPECT_EQ(*out, "j=" + humanize(v));
  }
  // Concurrent executions of one template.
  std::vector<std::thread> threads;
  std::vector<std::string> results(4);
  for (size_t i = 0; i < results.size(); ++i) threads.emplace_back([&, i] { results[i] = *expand(*t, kData, {}); });
  for (auto& th : threads) th.join();
  for (const auto& r : results) EXPECT_EQ(r, "node=250m");
}

TEST(Template, QueryCallback) {
  TemplateEnv env;
  std::vector<std::string> asked;
  env.query = [&asked](std::string_view q) -> Expected<std::vector<tmpl::Sample>> {
    asked.emplace_back(q);
    if (q == "bad(") return Status::error("1:5: parse error: unclosed left parenthesis");
    return std::vector<tmpl::Sample>{{{{"instance", "b"}}, 2}, {{{"instance", "a"}}, 1}};
  };
  EXPECT_EQ(run("{{ range sortByLabel \"instance\" (query \"up\") }}{{ .Labels.instance }}={{ .Value }} {{ end }}",
                kData, env),
            "a=1 b=2 ");
  EXPECT_EQ(
      run("{{ query \"up\" | first | value }} {{ with query \"up\" }}{{ . | first | label \"instance\" }}{{ end }}",
          kData, env),
      "2 b");
  EXPECT_EQ(run("{{ $r := query \"up\" }}{{ $s := sortByLabel \"instance\" $r }}{{ (first $r).Value }}", kData, env),
            "1");  // sortByLabel sorts in place, as Go's sort.Stable does
  EXPECT_EQ(run("{{ query \"bad(\" }}", kData, env),
            "<error expanding template: error executing template __alert_Test: template: __alert_Test:1:115: "
            "executing \"__alert_Test\" at <query \"bad(\">: error calling query: 1:5: parse error: unclosed left "
            "parenthesis>");
  EXPECT_EQ(asked.back(), "bad(");
  EXPECT_NE(run("{{ query \"up\" }}").find("invalid memory address"), std::string::npos);  // no callback
}

TEST(Template, HumanizeMatchesPrometheus) {
  // Cases from Prometheus's template/template_test.go.
  EXPECT_EQ(humanize(0), "0");
  EXPECT_EQ(humanize(1), "1");
  EXPECT_EQ(humanize(1234567.0), "1.235M");
  EXPECT_EQ(humanize(0.00001234), "12.34u");
  EXPECT_EQ(humanize(-1234567.0), "-1.235M");
  EXPECT_EQ(humanize(1e30), "1e+06Y");
  EXPECT_EQ(humanize(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(humanize(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(humanize_1024(1048576), "1Mi");
  EXPECT_EQ(humanize_1024(0.5), "0.5");
  EXPECT_EQ(humanize_duration(0), "0s");
  EXPECT_EQ(humanize_duration(1), "1s");
  EXPECT_EQ(humanize_duration(60), "1m 0s");
  EXPECT_EQ(humanize_duration(3600), "1h 0m 0s");
  EXPECT_EQ(humanize_duration(86400), "1d 0h 0m 0s");
  EXPECT_EQ(humanize_duration(93784), "1d 2h 3m 4s");
  EXPECT_EQ(humanize_duration(0.1234), "123.4ms");
  EXPECT_EQ(humanize_duration(-0.1234), "-123.4ms");
  EXPECT_EQ(humanize_duration(1.12345), "1.123s");
  EXPECT_EQ(humanize_percentage(0.1234567), "12.35%");
  EXPECT_EQ(*humanize_timestamp(1435065584.128), "2015-06-23 13:19:44.128 +0000 UTC");
  EXPECT_EQ(*humanize_timestamp(-1.5), "1969-12-31 23:59:58.5 +0000 UTC");
  EXPECT_EQ(humanize_timestamp(1e19).error(),
            "1e+19 cannot be represented as a nanoseconds timestamp since it overflows int64");
}

TEST(Template, GoFmt) {
  using gofmt::sprintf;
  EXPECT_EQ(sprintf("%5.2f|%-5d|%x|%q",
                    {Value::number(3.14159), Value::integer(42), Value::integer(255), Value::string("a\"b")}),
            " 3.14|42   |ff|\"a\\\"b\"");
  EXPECT_EQ(sprintf("%s %d", {Value::number(1.5)}), "%!s(float64=1.5) %!d(MISSING)");
  EXPECT_EQ(sprintf("%d", {Value::integer(1), Value::string("x")}), "1%!(EXTRA string=x)");
  EXPECT_EQ(sprintf("%v %v", {Value::number(1e21), Value::number(123456789.0)}), "1e+21 1.23456789e+08");
  EXPECT_EQ(sprintf("%08.3f|%+.1e|%6.2f", {Value::number(-3.5), Value::number(12345),
                                           Value::number(std::numeric_limits<double>::infinity())}),
            "-003.500|+1.2e+04|  +Inf");
  EXPECT_EQ(gofmt::sprint({Value::integer(1), Value::integer(2), Value::string("a"), Value::integer(3)}), "1 2a3");
}

TEST(Template, GoParseFloat) {
  EXPECT_EQ(*go::parse_float("1_000"), 1000);
  EXPECT_EQ(*go::parse_float("0x1p4"), 16);
  EXPECT_EQ(*go::parse_float("-Infinity"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(*go::parse_float("1e-400"), 0);
  EXPECT_EQ(go::parse_float("1e400").error(), "strconv.ParseFloat: parsing \"1e400\": value out of range");
  EXPECT_EQ(go::parse_float("1__0").error(), "strconv.ParseFloat: parsing \"1__0\": invalid syntax");
  EXPECT_FALSE(go::parse_float("0x10"));  // hex floats need an exponent
  EXPECT_FALSE(go::parse_float("+nan"));
}

TEST(Template, GoStrings) {
  EXPECT_EQ(go::title("hello world-foo_bar"), "Hello World-Foo_bar");
  EXPECT_EQ(go::upper("abc é"), "ABC É");
  EXPECT_EQ(go::query_escape("a b&c/é"), "a+b%26c%2F%C3%A9");
  EXPECT_EQ(go::split_host_port("[::1]:80")->first, "::1");
  EXPECT_FALSE(go::split_host_port("a:b:c"));
  EXPECT_TRUE(go::parse_ip("2001:db8::1"));
  EXPECT_FALSE(go::parse_ip("01.2.3.4"));
  EXPECT_EQ(run("{{ stripDomain \"host.example.com:9100\" }} {{ stripDomain \"10.0.0.1:80\" }}"),
            "host:9100 10.0.0.1:80");
  EXPECT_EQ(run("{{ reReplaceAll \"a(x*)b\" \"${1}W\" \"-ab-axxb-\" }} {{ reReplaceAll \"a*\" \"-\" \"baaac\" }}"),
            "-W-xxW- -b-c-");
}

TEST(Template, ExecutionIsBounded) {
  TemplateEnv env;
  env.max_output_bytes = 100;
  const std::string big = run("{{ range args 1 2 3 4 5 6 7 8 9 10 }}{{ printf \"%20d\" 1 }}{{ end }}", kData, env);
  EXPECT_NE(big.find("output exceeds 100 bytes"), std::string::npos) << big;
  env = {};
  env.max_steps = 50;
  const std::string steps =
      run("{{ range $labels }}{{ range $labels }}{{ range $labels }}.{{ end }}{{ end }}{{ end }}", kData, env);
  EXPECT_NE(steps.find("execution exceeded 50 steps"), std::string::npos) << steps;
  // Unbounded recursion through {{template}} stops with an error.
  const std::string rec = run("{{ define \"r\" }}{{ template \"r\" . }}{{ end }}{{ template \"r\" . }}");
  EXPECT_NE(rec.find("exceeded maximum template depth"), std::string::npos) << rec;
  // Deep nesting is a parse error, not a stack overflow.
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += "{{ if 1 }}";
  EXPECT_EQ(Template::parse("d", deep).error(), "template: d:1: max expression depth exceeded");
  EXPECT_TRUE(Template::parse("p", std::string(5000, '(')));  // text only: fine
  EXPECT_FALSE(Template::parse("p", "{{" + std::string(5000, '(') + "1" + std::string(5000, ')') + "}}"));
}

}  // namespace
}  // namespace llmon::rules
