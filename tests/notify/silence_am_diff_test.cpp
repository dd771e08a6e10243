// Differential test: the same sequence of silence API calls (POST
// /api/v2/silences, DELETE /api/v2/silence/{id}, GET /api/v2/silences) goes to
// the real Alertmanager 0.25 and to our post_silence_api/delete_silence_api
// and gettable rendering; status codes, the listing's shape, order, states
// and fields must agree (ids and exact timestamps differ by nature; error
// wording is compared only where Alertmanager's is not Go-specific).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "notify/route_am_harness.h"
#include "notify/silences/silence_json.h"

namespace llmon::notify {
namespace {

using nlohmann::json;

// An error body's text: a JSON string, or the "message" of an object.
std::string message(const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
  return body;
}

std::string iso(int64_t ms) {
  return silence_time_string(ms);
}

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

llmon::testing::HttpResult am_call(int port, const std::string& method, const std::string& target,
                                   const std::string& body) {
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                    "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  return llmon::testing::http_raw(port, req);
}

std::string body(const std::string& matchers, int64_t start, int64_t end, const std::string& extra = "") {
  return "{" + extra + "\"matchers\":" + matchers + ",\"startsAt\":\"" + iso(start) + "\",\"endsAt\":\"" + iso(end) +
         "\",\"createdBy\":\"alice\",\"comment\":\"c\"}";
}

TEST(SilenceVsAlertmanager, SameApiAnswersAndListing) {
  if (amtest::Alertmanager::binary().empty())
    GTEST_SKIP() << "prometheus-alertmanager not installed (Debian package prometheus-alertmanager)";
  amtest::TempDir dir;
  amtest::Alertmanager am;
  std::string err;
  ASSERT_TRUE(am.start(dir, "route: {receiver: r}\nreceivers: [{name: r}]\n", &err)) << err;
  base::SystemClock clock;
  Silences ours(clock, {});

  const int64_t now = wall_ms();
  const int64_t h = 3'600'000;
  const std::string ab = R"([{"name":"a","value":"b","isRegex":false}])";
  // The silence updated later: pending, so its start is the client's (ms
  // precision) in both; an active one's start is Alertmanager's clock in ns.
  const std::string kPending = body(
      R"([{"name":"job","value":"gpu.*","isRegex":true,"isEqual":false},{"name":"x","value":"y","isRegex":false}])",
      now + h, now + 2 * h);
  struct Call {
    const char* what;
    std::string body;
    bool keep_id = false;  // remember the created id (for updates/deletes)
  };
  std::vector<Call> calls = {
      {"active", body(ab, now - 1000, now + h)},
      {"pending", kPending, true},
      {"second active",
       body(R"([{"name":"c","value":"d","isRegex":false,"isEqual":false},{"name":"e","value":"f","isRegex":false}])",
            now, now + 3 * h)},
      {"no matchers", body("[]", now, now + h)},
      {"missing createdBy", "{\"matchers\":" + ab + ",\"startsAt\":\"" + iso(now) + "\",\"endsAt\":\"" + iso(now + h) +
                                "\",\"comment\":\"c\"}"},
      {"missing isRegex", body(R"([{"name":"a","value":"b"}])", now, now + h)},
      {"matches empty", body(R"([{"name":"a","value":"","isRegex":false}])", now, now + h)},
      {"end before start", body(ab, now + h, now)},
      {"end in the past", body(ab, now - 2 * h, now - h)},
      {"unknown id", body(ab, now, now + h, "\"id\":\"00000000-0000-4000-8000-000000000000\",")},
      {"bad label name", body(R"([{"name":"a:b","value":"b","isRegex":false}])", now, now + h)},
      {"bad regex", body(R"([{"name":"a","value":"(","isRegex":true}])", now, now + h)},
      {"not json", "not json"},
  };
  std::string am_id, our_id;
  for (const auto& c : calls) {
    auto theirs = am_call(am.port(), "POST", "/api/v2/silences", c.body);
    SilenceApiReply mine = post_silence_api(ours, c.body, wall_ms());
    EXPECT_EQ(mine.status, theirs.status) << c.what << "\nalertmanager: " << theirs.body << "\nllmon: " << mine.body;
    if (theirs.status != 200 && theirs.status != 422) {
      EXPECT_EQ(message(mine.body).substr(0, 20), message(theirs.body).substr(0, 20)) << c.what;
    }
    if (c.keep_id && theirs.status == 200 && mine.status == 200) {
      am_id = json::parse(theirs.body)["silenceID"];
      our_id = json::parse(mine.body)["silenceID"];
    }
  }
  ASSERT_FALSE(am_id.empty());
  EXPECT_TRUE(
      std::regex_match(our_id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));

  // Update in place (same matchers, same start, later end) keeps the id in both.
  {
    auto update = [&](const std::string& id) {
      json j = json::parse(kPending);
      j["id"] = id;
      j["endsAt"] = iso(now + 3 * h);
      return j.dump();
    };
    auto theirs = am_call(am.port(), "POST", "/api/v2/silences", update(am_id));
    auto mine = post_silence_api(ours, update(our_id), wall_ms());
    ASSERT_EQ(theirs.status, 200) << theirs.body;
    ASSERT_EQ(mine.status, 200) << mine.body;
    EXPECT_EQ(json::parse(theirs.body)["silenceID"], am_id);
    EXPECT_EQ(json::parse(mine.body)["silenceID"], our_id);
  }

  // DELETE: expire, expire again (idempotent), unknown uuid, not a uuid.
  for (int i = 0; i < 2; ++i) {
    auto theirs = am_call(am.port(), "DELETE", "/api/v2/silence/" + am_id, "");
    auto mine = delete_silence_api(ours, our_id);
    EXPECT_EQ(mine.status, theirs.status) << "delete #" << i << ": " << theirs.body;
  }
  {
    // Documented difference: for an unknown (well-formed) id Alertmanager 0.25
    // answers 500 "silence not found" although its API spec says 404; llmon
    // answers 404 with the same message.
    const std::string id = "00000000-0000-4000-8000-000000000000";
    auto theirs = am_call(am.port(), "DELETE", "/api/v2/silence/" + id, "");
    auto mine = delete_silence_api(ours, id);
    EXPECT_EQ(theirs.status, 500) << theirs.body;
    EXPECT_EQ(mine.status, 404);
    EXPECT_EQ(message(mine.body), message(theirs.body));
    theirs = am_call(am.port(), "DELETE", "/api/v2/silence/nope", "");
    mine = delete_silence_api(ours, "nope");
    EXPECT_EQ(mine.status, theirs.status) << theirs.body;
  }

  // GET: same shape, order (active by end, pending by start, expired), states and fields.
  json theirs = json::parse(am_call(am.port(), "GET", "/api/v2/silences", "").body);
  json mine = json::parse(render_gettable_silences(ours.list(), wall_ms()));
  ASSERT_EQ(mine.size(), theirs.size()) << theirs.dump(1);
  for (size_t i = 0; i < mine.size(); ++i) {
    SCOPED_TRACE("silence #" + std::to_string(i) + "\nalertmanager: " + theirs[i].dump() +
                 "\nllmon: " + mine[i].dump());
    std::vector<std::string> keys_a, keys_b;
    for (auto it = theirs[i].begin(); it != theirs[i].end(); ++it) keys_a.push_back(it.key());
    for (auto it = mine[i].begin(); it != mine[i].end(); ++it) keys_b.push_back(it.key());
    EXPECT_EQ(keys_b, keys_a);
    EXPECT_EQ(mine[i]["status"], theirs[i]["status"]);
    EXPECT_EQ(mine[i]["matchers"], theirs[i]["matchers"]);
    EXPECT_EQ(mine[i]["comment"], theirs[i]["comment"]);
    EXPECT_EQ(mine[i]["createdBy"], theirs[i]["createdBy"]);
    // Times: same format; same value where the client set it (pending start).
    for (const char* k : {"startsAt", "endsAt", "updatedAt"})
      EXPECT_TRUE(
          std::regex_match(mine[i][k].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
          << k;
    if (theirs[i]["status"]["state"] == "pending") {
      EXPECT_EQ(mine[i]["startsAt"], theirs[i]["startsAt"]);
    }
  }
}

}  // namespace
}  // namespace llmon::notify
