// Prometheus API parameter parsing (app/api_params.h) on literal strings. The
// expected times, rounding and error texts were read off Prometheus 2.42's
// answers to the same parameters (docs/api.md).
#include "api/params.h"

#include <gtest/gtest.h>

namespace llmon::api {
namespace {

int64_t time_ok(std::string_view s) {
  auto t = parse_time_ms(s);
  EXPECT_TRUE(t.has_value()) << s << ": " << t.error();
  return t ? *t : -42;
}

std::string time_err(std::string_view s) {
  auto t = parse_time_ms(s);
  EXPECT_FALSE(t.has_value()) << s << " parsed as " << (t ? *t : 0);
  return t ? "" : t.error();
}

TEST(ApiParamsTest, UnixSecondsRoundToTheMillisecondLikePrometheus) {
  EXPECT_EQ(time_ok("4"), 4000);
  EXPECT_EQ(time_ok("1010"), 1010000);
  EXPECT_EQ(time_ok("1010.1234"), 1010123);
  EXPECT_EQ(time_ok("1030.5"), 1030500);
  EXPECT_EQ(time_ok("-1030.05"), -1030050);
  EXPECT_EQ(time_ok("-1.5"), -1500);
  EXPECT_EQ(time_ok("0.001"), 1);
  EXPECT_EQ(time_ok("1e3"), 1000000);
  EXPECT_EQ(time_ok("2e9"), 2000000000000);
  EXPECT_EQ(time_ok("+5"), 5000);
  EXPECT_EQ(time_ok(".5"), 500);
  EXPECT_EQ(time_ok("1700000000.123"), 1700000000123);
  // Prometheus: math.Round(frac*1000)/1000 on the binary double.
  EXPECT_EQ(time_ok("1.9995"), 2000);
  EXPECT_EQ(time_ok("-0.0005"), -1);
  EXPECT_EQ(time_ok("0.0015"), 2);
  EXPECT_EQ(time_ok("1.0005"), 1000);
  EXPECT_EQ(time_ok("2.0005"), 2001);
  EXPECT_EQ(time_ok("-1.0005"), -1000);
  EXPECT_EQ(time_ok("0.9999"), 1000);
}

TEST(ApiParamsTest, Rfc3339) {
  EXPECT_EQ(time_ok("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(time_ok("2023-01-01T00:00:00.5Z"), 1672531200500);
  EXPECT_EQ(time_ok("2023-01-01T01:00:00+01:00"), 1672531200000);
  EXPECT_EQ(time_ok("2022-12-31T23:00:00-01:00"), 1672531200000);
  EXPECT_EQ(time_ok("2015-07-01T20:10:51.781Z"), 1435781451781);
  EXPECT_EQ(time_ok("2015-07-01T20:10:51.7819999999Z"), 1435781451781);  // digits past ns ignored
  EXPECT_EQ(time_ok("2024-02-29T00:00:00Z"), 1709164800000);
  EXPECT_EQ(time_ok("1969-12-31T23:59:59.999Z"), -1);
  EXPECT_EQ(time_ok("-292273086-05-16T16:47:06Z"), kMinTimeMs);
  EXPECT_EQ(time_ok("292277025-08-18T07:12:54.999999999Z"), kMaxTimeMs);
}

TEST(ApiParamsTest, BadTimesNameTheText) {
  EXPECT_EQ(time_err("abc"), "cannot parse \"abc\" to a valid timestamp");
  EXPECT_EQ(time_err(""), "cannot parse \"\" to a valid timestamp");
  for (std::string_view s : {"2023-02-29T00:00:00Z",
                             "2023-01-01T00:00:00",
                             "2023-01-01 00:00:00Z",
                             "2023-01-01T24:00:00Z",
                             "2023-13-01T00:00:00Z",
                             "2023-01-01T00:00:00.Z",
                             "2023-01-01T00:00:00+0100",
                             "23-01-01T00:00:00Z",
                             "2023-01-01T00:00:00Zjunk",
                             "Inf",
                             "NaN",
                             "1e400",
                             "1e16",
                             "0x10",
                             "1_000",
                             "5m",
                             "1.2.3",
                             "-",
                             "e5",
                             " 1"}) {
    EXPECT_NE(time_err(s), "") << s;
  }
  EXPECT_EQ(time_err("\"\n"), "cannot parse \"\\\"\\n\" to a valid timestamp");
  EXPECT_EQ(time_ok("1."), 1000) << "Go's ParseFloat takes a trailing point";
}

TEST(ApiParamsTest, TimeParamDefaultsAndWrapsErrors) {
  Form f{{{"time", "abc"}, {"start", ""}}};
  EXPECT_EQ(*parse_time_param(f, "start", 77), 77);
  EXPECT_EQ(*parse_time_param(f, "end", 78), 78);
  auto t = parse_time_param(f, "time", 0);
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error(), "Invalid time value for 'time': cannot parse \"abc\" to a valid timestamp");
}

TEST(ApiParamsTest, DurationsAreFloatSecondsOrPrometheusDurations) {
  EXPECT_EQ(*parse_duration_ns("15"), 15'000'000'000);
  EXPECT_EQ(*parse_duration_ns("1.5"), 1'500'000'000);
  EXPECT_EQ(*parse_duration_ns("0.0005"), 500'000);
  EXPECT_EQ(*parse_duration_ns("-1"), -1'000'000'000);
  EXPECT_EQ(*parse_duration_ns("0"), 0);
  EXPECT_EQ(*parse_duration_ns("1m"), 60'000'000'000);
  EXPECT_EQ(*parse_duration_ns("1h30m"), 5'400'000'000'000);
  EXPECT_EQ(*parse_duration_ns("250ms"), 250'000'000);
  EXPECT_EQ(parse_duration_ns("abc").error(), "cannot parse \"abc\" to a valid duration");
  EXPECT_EQ(parse_duration_ns("").error(), "cannot parse \"\" to a valid duration");
  EXPECT_EQ(parse_duration_ns("-5m").error(), "cannot parse \"-5m\" to a valid duration");
  EXPECT_EQ(parse_duration_ns("1e10").error(), "cannot parse \"1e10\" to a valid duration. It overflows int64");
  EXPECT_FALSE(parse_duration_ns("1000y").has_value());
}

TEST(ApiParamsTest, Limit) {
  EXPECT_EQ(*parse_limit(""), 0);
  EXPECT_EQ(*parse_limit("0"), 0);
  EXPECT_EQ(*parse_limit("40000"), 40000);
  EXPECT_EQ(*parse_limit("+7"), 7);
  EXPECT_EQ(parse_limit("-1").error(), "limit must be non-negative");
  EXPECT_EQ(parse_limit("x").error(), "strconv.Atoi: parsing \"x\": invalid syntax");
  EXPECT_EQ(parse_limit("1.5").error(), "strconv.Atoi: parsing \"1.5\": invalid syntax");
  EXPECT_EQ(parse_limit("99999999999999999999").error(),
            "strconv.Atoi: parsing \"99999999999999999999\": value out of range");
  EXPECT_EQ(go_atoi("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(go_atoi("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(go_atoi("9223372036854775808"), std::nullopt);
  EXPECT_EQ(go_atoi("-"), std::nullopt);
}

TEST(ApiParamsTest, UrlQueryDecodesLikeGo) {
  auto q = parse_url_query("query=1%2B1&time=4&match%5B%5D=up&match[]=%7Bjob%3D%22x%20y%22%7D&flag&&e=&sp=a+b");
  ASSERT_TRUE(q.has_value()) << q.error();
  Pairs want = {{"query", "1+1"}, {"time", "4"}, {"match[]", "up"}, {"match[]", "{job=\"x y\"}"},
                {"flag", ""},     {"e", ""},     {"sp", "a b"}};
  EXPECT_EQ(*q, want);
  EXPECT_EQ(parse_url_query("a=%2").error(), "invalid URL escape \"%2\"");
  EXPECT_EQ(parse_url_query("a=%zz&b=1").error(), "invalid URL escape \"%zz\"");
  EXPECT_EQ(parse_url_query("a=1;b=2").error(), "invalid semicolon separator in query");
  EXPECT_TRUE(parse_url_query("").has_value());
  EXPECT_EQ(parse_url_query("a=%00%ff")->at(0).second, std::string("\0\xff", 2));
}

TEST(ApiParamsTest, FormTakesThePostBodyFirst) {
  auto f = parse_form("POST", "application/x-www-form-urlencoded", "query=foo&time=1", "query=up&match[]=a");
  ASSERT_TRUE(f.has_value()) << f.error();
  EXPECT_EQ(f->get("query"), "up");
  EXPECT_EQ(f->get("time"), "1");
  EXPECT_EQ(f->get("absent"), "");
  EXPECT_FALSE(f->has("absent"));
  EXPECT_EQ(f->all("query"), (std::vector<std::string>{"up", "foo"}));

  auto g = parse_form("GET", "application/x-www-form-urlencoded", "query=foo", "query=up");
  EXPECT_EQ(g->get("query"), "foo") << "a GET body is not a form";
  auto h = parse_form("POST", "text/plain", "query=foo", "query=up");
  EXPECT_EQ(h->get("query"), "foo") << "only form-encoded bodies count";
  auto i = parse_form("POST", " Application/X-WWW-Form-Urlencoded ; charset=UTF-8", "", "query=up");
  EXPECT_EQ(i->get("query"), "up");
  auto bad = parse_form("POST", "application/x-www-form-urlencoded", "", "query=%G0");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error(), "error parsing form values: invalid URL escape \"%G0\"");
}

TEST(ApiParamsTest, LabelNameSegment) {
  EXPECT_EQ(*parse_label_name_segment("job"), "job");
  EXPECT_EQ(*parse_label_name_segment("__name__"), "__name__");
  EXPECT_EQ(*parse_label_name_segment("%6Aob"), "job");
  EXPECT_EQ(*parse_label_name_segment("U__foo_2e_bar"), "foo.bar");
  EXPECT_EQ(*parse_label_name_segment("U__a__b"), "a_b");
  EXPECT_EQ(*parse_label_name_segment("U___1f600_"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(parse_label_name_segment("1bad").error(), "invalid label name: \"1bad\"");
  EXPECT_EQ(parse_label_name_segment("a-b").error(), "invalid label name: \"a-b\"");
  EXPECT_EQ(parse_label_name_segment("").error(), "invalid label name: \"\"");
  EXPECT_FALSE(parse_label_name_segment("U__a_zz_").has_value());
  EXPECT_FALSE(parse_label_name_segment("U__a_d800_").has_value());
  EXPECT_FALSE(parse_label_name_segment("%2").has_value());
}

}  // namespace
}  // namespace llmon::api
