// The bytes Prometheus sends to Alertmanager (PostableAlerts), the Go JSON
// conventions behind them, and external labels.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "go/json.h"
#include "notify/senders/alertmanager.h"

namespace llmon::notify {
namespace {

TEST(GoJson, QuotesLikeEncodingJson) {
  EXPECT_EQ(go::json::quoted(""), "\"\"");
  EXPECT_EQ(go::json::quoted("plain text"), "\"plain text\"");
  EXPECT_EQ(go::json::quoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(go::json::quoted("\n\r\t"), R"("\n\r\t")");
  // Other control bytes as \u00XX, lower-case hex (\b and \f too in Go < 1.22).
  EXPECT_EQ(go::json::quoted(std::string("\x01\x08\x0c\x1f", 4)), R"("\u0001\u0008\u000c\u001f")");
  EXPECT_EQ(go::json::quoted(std::string("\0", 1)), R"("\u0000")");
  // HTML-sensitive characters are escaped (json.Marshal's default escapeHTML).
  EXPECT_EQ(go::json::quoted("<a href=\"x\">&</a>"), R"("\u003ca href=\"x\"\u003e\u0026\u003c/a\u003e")");
  // DEL and valid multi-byte UTF-8 pass through.
  EXPECT_EQ(go::json::quoted("\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5"), "\"\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\xa5\"");
  // Line and paragraph separators are escaped.
  EXPECT_EQ(go::json::quoted("a\xe2\x80\xa8"
                           "b\xe2\x80\xa9"),
            R"("a\u2028b\u2029")");
  // Invalid UTF-8: one \ufffd per bad byte.
  EXPECT_EQ(go::json::quoted("\xff"), R"("\ufffd")");
  EXPECT_EQ(go::json::quoted("x\xe2\x82"), R"("x\ufffd\ufffd")");
  EXPECT_EQ(go::json::quoted("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");  // a UTF-16 surrogate
  EXPECT_EQ(go::json::quoted("\xc0\xaf"), R"("\ufffd\ufffd")");            // overlong
}

TEST(GoJson, QuotedOutputIsValidJsonForEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string q = go::json::quoted(all);
  auto parsed = nlohmann::json::parse(q, nullptr, false);
  ASSERT_TRUE(parsed.is_string()) << q;
  const std::string back = parsed.get<std::string>();
  EXPECT_EQ(back.substr(0, 128), all.substr(0, 128));  // ASCII survives exactly
}

TEST(GoJson, StringMapSortsKeysAndKeepsLastDuplicate) {
  std::string out;
  go::json::append_string_map(out, {{"b", "2"}, {"a", "1"}, {"B", "0"}, {"a", "3"}});
  EXPECT_EQ(out, R"({"B":"0","a":"3","b":"2"})");
  out.clear();
  go::json::append_string_map(out, {});
  EXPECT_EQ(out, "{}");
}

TEST(GoJson, TimeFormats) {
  EXPECT_EQ(go::json::go_time(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(go::json::go_time(1714564800000), "2024-05-01T12:00:00Z");
  EXPECT_EQ(go::json::go_time(1714564800500), "2024-05-01T12:00:00.5Z");
  EXPECT_EQ(go::json::go_time(1714564800120), "2024-05-01T12:00:00.12Z");
  EXPECT_EQ(go::json::go_time(1714564800123), "2024-05-01T12:00:00.123Z");
  EXPECT_EQ(go::json::go_time(951782400000), "2000-02-29T00:00:00Z");
  EXPECT_EQ(go::json::go_time(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(go::json::go_time(253402300799000), "9999-12-31T23:59:59Z");
  EXPECT_EQ(go::json::strfmt_millis(1714564800000), "2024-05-01T12:00:00.000Z");
  EXPECT_EQ(go::json::strfmt_millis(1714564800120), "2024-05-01T12:00:00.120Z");
  EXPECT_EQ(go::json::strfmt_millis(951782400007), "2000-02-29T00:00:00.007Z");
}

TEST(PostableAlerts, ExactBytes) {
  Alert firing;
  firing.labels = {{"alertname", "GpuHot"}, {"gpu", "0"}, {"severity", "page"}};
  firing.annotations = {{"summary", "GPU 0 at 91°C <hot>"}};
  firing.starts_at_ms = 1714564800123;
  firing.ends_at_ms = 1714565040123;
  firing.generator_url = "http://gpu01:9100/graph?g0.expr=gpu_temp+%3E+90&g0.tab=1";
  Alert bare;
  bare.labels = {{"alertname", "Up"}};
  const std::vector<Alert> alerts{firing, bare};
  EXPECT_EQ(encode_postable_alerts(alerts),
            "[{\"annotations\":{\"summary\":\"GPU 0 at 91\xc2\xb0"
            "C \\u003chot\\u003e\"},"
            "\"endsAt\":\"2024-05-01T12:04:00.123Z\",\"startsAt\":\"2024-05-01T12:00:00.123Z\","
            "\"generatorURL\":\"http://gpu01:9100/graph?g0.expr=gpu_temp+%3E+90\\u0026g0.tab=1\","
            "\"labels\":{\"alertname\":\"GpuHot\",\"gpu\":\"0\",\"severity\":\"page\"}},"
            "{\"endsAt\":\"0001-01-01T00:00:00.000Z\",\"startsAt\":\"0001-01-01T00:00:00.000Z\","
            "\"labels\":{\"alertname\":\"Up\"}}]");
  EXPECT_EQ(encode_postable_alerts({}), "[]");
}

TEST(PostableAlerts, ExternalLabelsNeverOverrideTheAlertsOwn) {
  const LabelPairs ext{{"cluster", "c1"}, {"replica", "r0"}, {"severity", "low"}};
  EXPECT_EQ(with_external_labels({{"alertname", "A"}, {"severity", "page"}}, ext),
            (LabelPairs{{"alertname", "A"}, {"cluster", "c1"}, {"replica", "r0"}, {"severity", "page"}}));
  // An empty value counts as absent (labels.Get(name) == "").
  EXPECT_EQ(with_external_labels({{"alertname", "A"}, {"cluster", ""}}, ext),
            (LabelPairs{{"alertname", "A"}, {"cluster", "c1"}, {"replica", "r0"}, {"severity", "low"}}));
  EXPECT_EQ(with_external_labels({{"alertname", "A"}}, {}), (LabelPairs{{"alertname", "A"}}));
}

}  // namespace
}  // namespace llmon::notify
