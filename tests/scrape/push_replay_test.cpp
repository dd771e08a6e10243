// Differential check of the push store against Prometheus Pushgateway 1.5.1:
// the requests prometheus_client makes (tests/fixtures/push/, recorded by
// tests/tools/push_record.py) replayed into the store must give the page the
// real Pushgateway showed for them (push times masked, as push_replay.py
// does for the Pushgateway's page).
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "scrape/push_store.h"
#include "support/subprocess.h"
#include "support/test_paths.h"

namespace llmon::scrape {
namespace {

struct Request {
  std::string method, path, body;
};

std::vector<Request> read_requests(const std::string& text) {
  std::vector<Request> out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t nl = text.find('\n', i);
    std::istringstream head(text.substr(i, nl - i));
    Request r;
    size_t n = 0;
    head >> r.method >> r.path >> n;
    r.body = text.substr(nl + 1, n);
    out.push_back(std::move(r));
    i = nl + 1 + n + 1;
  }
  return out;
}

std::string masked_page(const PushStore& s) {
  std::string page;
  write_push_page(s.families(), page);
  static const std::regex kTime("^(push_time_seconds|push_failure_time_seconds)(\\{.*\\}) (.+)$");
  std::string out;
  std::istringstream in(page);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, kTime) && m[3] != "0") line = m[1].str() + m[2].str() + " <time>";
    out += line + "\n";
  }
  return out;
}

std::string replay(size_t steps) {
  const auto requests = read_requests(testing::read_text(testing::fixture("push/client_requests.txt")));
  EXPECT_EQ(requests.size(), 7u);
  base::ManualClock clock(1796289893000);
  PushStore s(clock);
  for (size_t i = 0; i < requests.size() && (steps == 0 || i < steps); ++i) {
    const Request& r = requests[i];
    clock.advance_ms(7);
    EXPECT_TRUE(is_push_path(r.path)) << r.path;
    auto k = parse_push_path(r.path);
    EXPECT_TRUE(k.has_value()) << r.path << ": " << k.error();
    if (!k) continue;
    if (r.method == "DELETE") {
      s.remove(*k);
      continue;
    }
    Status st = s.push(*k, r.body, r.method == "PUT" ? PushMode::kReplaceGroup : PushMode::kReplaceFamilies);
    if (i == 5) {  // the timestamped sample: refused, as by the Pushgateway
      EXPECT_EQ(st.message(),
                "pushed metrics are invalid or inconsistent with existing metrics: pushed metrics must not have "
                "timestamps");
    } else {
      EXPECT_TRUE(st) << r.method << " " << r.path << ": " << st.message();
    }
  }
  return masked_page(s);
}

TEST(PushReplay, AfterPushAndPushAddAsPushgateway) {
  EXPECT_EQ(replay(2), testing::read_text(testing::fixture("push/pushgateway_after_2.txt")));
}

TEST(PushReplay, AfterAllRequestsAsPushgateway) {
  EXPECT_EQ(replay(0), testing::read_text(testing::fixture("push/pushgateway_final.txt")));
}

}  // namespace
}  // namespace llmon::scrape
