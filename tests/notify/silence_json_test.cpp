// API v2 silence JSON: gettable rendering, postable parsing (required fields,
// matcher flags, bad input), RFC 3339 times.
#include "notify/silences/silence_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace llmon::notify {
namespace {

using nlohmann::json;

constexpr int64_t kT0 = 1'700'000'000'000;  // 2023-11-14T22:13:20Z

TEST(SilenceTime, FormatAndParse) {
  EXPECT_EQ(silence_time_string(kT0), "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(silence_time_string(kT0 + 5), "2023-11-14T22:13:20.005Z");
  EXPECT_EQ(silence_time_string(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(silence_time_string(951'782'400'000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(*parse_silence_time("2023-11-14T22:13:20.000Z"), kT0);
  EXPECT_EQ(*parse_silence_time("2023-11-14T22:13:20Z"), kT0);
  EXPECT_EQ(*parse_silence_time("2023-11-14T23:13:20+01:00"), kT0);
  EXPECT_EQ(*parse_silence_time("2023-11-14T21:13:20.123456789-01:00"), kT0 + 123);
  EXPECT_EQ(*parse_silence_time("2000-02-29T00:00:00Z"), 951'782'400'000);
  for (const char* bad :
       {"", "2023-11-14", "2023-11-14 22:13:20Z", "2023-11-14T22:13:20", "2023-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
        "2023-11-14T24:00:00Z", "2023-11-14T22:13:20.Z", "2023-11-14T22:13:20Zjunk", "2023-11-14T22:13:20+0100"})
    EXPECT_FALSE(parse_silence_time(bad).has_value()) << bad;
}

TEST(SilenceJson, GettableShape) {
  Silence s;
  s.id = "4b3a1f6e-0000-4000-8000-000000000001";
  s.matchers = {*Matcher::make(MatchType::kEqual, "alertname", "GpuHot"),
                *Matcher::make(MatchType::kNotRegexp, "instance", "gpu[0-3]"),
                *Matcher::make(MatchType::kNotEqual, "a", "b"), *Matcher::make(MatchType::kRegexp, "c", "d")};
  s.starts_at_ms = kT0;
  s.ends_at_ms = kT0 + 3'600'000;
  s.updated_at_ms = kT0;
  s.created_by = "alice";
  s.comment = "maintenance \"window\"";
  json j = json::parse(render_gettable_silence(s, kT0 + 1));
  EXPECT_EQ(j["id"], s.id);
  EXPECT_EQ(j["status"]["state"], "active");
  EXPECT_EQ(j["startsAt"], "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(j["endsAt"], "2023-11-14T23:13:20.000Z");
  EXPECT_EQ(j["updatedAt"], "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(j["createdBy"], "alice");
  EXPECT_EQ(j["comment"], "maintenance \"window\"");
  ASSERT_EQ(j["matchers"].size(), 4u);
  EXPECT_EQ(j["matchers"][0],
            json({{"name", "alertname"}, {"value", "GpuHot"}, {"isRegex", false}, {"isEqual", true}}));
  EXPECT_EQ(j["matchers"][1],
            json({{"name", "instance"}, {"value", "gpu[0-3]"}, {"isRegex", true}, {"isEqual", false}}));
  EXPECT_EQ(j["matchers"][2]["isEqual"], false);
  EXPECT_EQ(j["matchers"][3]["isRegex"], true);
  EXPECT_EQ(json::parse(render_gettable_silence(s, kT0 - 1))["status"]["state"], "pending");
  EXPECT_EQ(json::parse(render_gettable_silence(s, kT0 + 3'600'001))["status"]["state"], "expired");

  json arr = json::parse(render_gettable_silences({s, s}, kT0));
  EXPECT_EQ(arr.size(), 2u);
  EXPECT_EQ(json::parse(render_gettable_silences({}, kT0)), json::array());
  EXPECT_EQ(render_silence_id("abc"), R"({"silenceID":"abc"})");
  // Invalid UTF-8 (from a command line) does not throw.
  s.comment = "\xff";
  EXPECT_NO_THROW((void)render_gettable_silence(s, kT0));
}

TEST(SilenceJson, ParsePostable) {
  auto s = parse_postable_silence(R"({
    "matchers": [{"name": "alertname", "value": "GpuHot", "isRegex": false},
                 {"name": "instance", "value": "gpu.*", "isRegex": true, "isEqual": false}],
    "startsAt": "2023-11-14T22:13:20.000Z", "endsAt": "2023-11-14T23:13:20Z",
    "createdBy": "alice", "comment": "x"})");
  ASSERT_TRUE(s.has_value()) << s.error();
  EXPECT_EQ(s->id, "");
  EXPECT_EQ(matchers_to_string(s->matchers), R"({alertname="GpuHot",instance!~"gpu.*"})");
  EXPECT_EQ(s->starts_at_ms, kT0);
  EXPECT_EQ(s->ends_at_ms, kT0 + 3'600'000);
  EXPECT_EQ(s->created_by, "alice");
  auto upd = parse_postable_silence(
      R"({"id":"abc","matchers":[{"name":"a","value":"b","isRegex":false}],"startsAt":"2023-11-14T22:13:20Z",)"
      R"("endsAt":"2023-11-14T22:13:21Z","createdBy":"","comment":""})");
  ASSERT_TRUE(upd.has_value()) << upd.error();
  EXPECT_EQ(upd->id, "abc");

  struct Case {
    const char* body;
    const char* error;
  } cases[] = {
      {"", "invalid JSON"},
      {"[]", "expected a JSON object"},
      {"{\"matchers\":[]", "invalid JSON"},
      {R"({"startsAt":"2023-11-14T22:13:20Z","endsAt":"2023-11-14T22:13:21Z","createdBy":"a","comment":""})",
       "matchers: required"},
      {R"({"matchers":[],"startsAt":"2023-11-14T22:13:20Z","endsAt":"2023-11-14T22:13:21Z","createdBy":"a","comment":""})",
       "matchers: at least one matcher required"},
      {R"({"matchers":[{"name":"a","value":"b"}],"startsAt":"2023-11-14T22:13:20Z","endsAt":"2023-11-14T22:13:21Z","createdBy":"a","comment":""})",
       "matchers[0].isRegex: required"},
      {R"({"matchers":[{"name":"a","value":"(","isRegex":true}],"startsAt":"2023-11-14T22:13:20Z","endsAt":"2023-11-14T22:13:21Z","createdBy":"a","comment":""})",
       "silence invalid: invalid label matcher 0: invalid regular expression"},
      {R"({"matchers":[{"name":"a","value":"b","isRegex":"no"}],"startsAt":"2023-11-14T22:13:20Z","endsAt":"2023-11-14T22:13:21Z","createdBy":"a","comment":""})",
       "matchers[0].isRegex: expected true or false"},
      {R"({"matchers":[{"name":"a","value":"b","isRegex":false}],"endsAt":"2023-11-14T22:13:21Z","createdBy":"a","comment":""})",
       "startsAt: required"},
      {R"({"matchers":[{"name":"a","value":"b","isRegex":false}],"startsAt":"yesterday","endsAt":"2023-11-14T22:13:21Z","createdBy":"a","comment":""})",
       "startsAt: invalid RFC 3339 time"},
      {R"({"matchers":[{"name":"a","value":"b","isRegex":false}],"startsAt":"2023-11-14T22:13:20Z","endsAt":"2023-11-14T22:13:21Z","comment":""})",
       "createdBy: required"},
      {R"({"matchers":[{"name":"a","value":"b","isRegex":false}],"startsAt":"2023-11-14T22:13:20Z","endsAt":"2023-11-14T22:13:21Z","createdBy":1,"comment":""})",
       "createdBy: expected a string"},
  };
  for (const auto& c : cases) {
    auto r = parse_postable_silence(c.body);
    ASSERT_FALSE(r.has_value()) << c.body;
    EXPECT_EQ(r.error().rfind(c.error, 0), 0u) << c.body << " -> " << r.error();
  }
}

TEST(SilenceJson, TruncatedInputNeverThrows) {
  const std::string full =
      R"({"matchers":[{"name":"a","value":"b","isRegex":false,"isEqual":true}],"startsAt":"2023-11-14T22:13:20Z",)"
      R"("endsAt":"2023-11-14T22:13:21Z","createdBy":"a","comment":"c"})";
  for (size_t n = 0; n < full.size(); ++n) EXPECT_FALSE(parse_postable_silence(full.substr(0, n)).has_value());
  EXPECT_TRUE(parse_postable_silence(full).has_value());
}

}  // namespace
}  // namespace llmon::notify
