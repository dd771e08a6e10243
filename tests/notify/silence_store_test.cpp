// Silences: states, matching, create/update/expire rules as Alertmanager's
// silence.go, garbage collection, persistence (round trip, atomic file,
// corrupt file set aside, unwritable directory rolls back), uuid v4.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "notify/silences/silences.h"

namespace llmon::notify {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;
constexpr int64_t kH = 3'600'000;

Matcher m(MatchType t, const std::string& n, const std::string& v) {
  return *Matcher::make(t, n, v);
}

Silence sil(Matchers ms, int64_t start, int64_t end, std::string id = "") {
  Silence s;
  s.id = std::move(id);
  s.matchers = std::move(ms);
  s.starts_at_ms = start;
  s.ends_at_ms = end;
  s.created_by = "alice";
  s.comment = "maintenance";
  return s;
}

// Deterministic RNG: a counter.
std::function<uint64_t()> counter_rng() {
  auto n = std::make_shared<uint64_t>(0);
  return [n] { return 0x0123456789abcdefULL * ++*n; };
}

class TempDir {
 public:
  TempDir() {
    std::string t = ::testing::TempDir() + "nroute-sil-XXXXXX";
    path_ = ::mkdtemp(t.data()) ? t : "";
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(Silences, StatesAndMatching) {
  base::ManualClock clock(kT0);
  Silences s(clock, {.rng = counter_rng()});
  auto id = s.set(
      sil({m(MatchType::kEqual, "alertname", "GpuHot"), m(MatchType::kRegexp, "instance", "gpu[0-3]")}, kT0, kT0 + kH));
  ASSERT_TRUE(id.has_value()) << id.error();
  EXPECT_TRUE(s.mutes({{"alertname", "GpuHot"}, {"instance", "gpu2"}}, kT0));
  EXPECT_TRUE(s.mutes({{"alertname", "GpuHot"}, {"instance", "gpu2"}}, kT0 + kH));  // end inclusive
  EXPECT_FALSE(s.mutes({{"alertname", "GpuHot"}, {"instance", "gpu2"}}, kT0 + kH + 1));
  EXPECT_FALSE(s.mutes({{"alertname", "GpuHot"}, {"instance", "gpu7"}}, kT0));
  EXPECT_FALSE(s.mutes({{"alertname", "GpuHot"}}, kT0));  // instance missing = ""
  EXPECT_EQ(s.query({{"alertname", "GpuHot"}, {"instance", "gpu0"}}, kT0).size(), 1u);

  auto pending = s.set(sil({m(MatchType::kEqual, "a", "b")}, kT0 + kH, kT0 + 2 * kH));
  ASSERT_TRUE(pending.has_value());
  EXPECT_EQ(silence_state(*s.get(*pending), kT0), SilenceState::kPending);
  EXPECT_FALSE(s.mutes({{"a", "b"}}, kT0));
  EXPECT_TRUE(s.mutes({{"a", "b"}}, kT0 + kH));
}

TEST(Silences, CreateUpdateExpireLikeAlertmanager) {
  base::ManualClock clock(kT0);
  Silences s(clock, {.rng = counter_rng()});
  // A start in the past becomes now.
  auto id = s.set(sil({m(MatchType::kEqual, "a", "b")}, kT0 - kH, kT0 + kH));
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(s.get(*id)->starts_at_ms, kT0);
  EXPECT_EQ(s.get(*id)->updated_at_ms, kT0);

  // Same matchers, same start, later end: updated in place (same id).
  clock.set_ms(kT0 + 10);
  Silence upd = *s.get(*id);
  upd.ends_at_ms = kT0 + 2 * kH;
  upd.comment = "longer";
  auto same = s.set(upd);
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(*same, *id);
  EXPECT_EQ(s.get(*id)->comment, "longer");
  EXPECT_EQ(s.size(), 1u);

  // Different matchers: the old one is expired, a new id issued.
  Silence changed = *s.get(*id);
  changed.matchers = {m(MatchType::kEqual, "a", "c")};
  auto other = s.set(changed);
  ASSERT_TRUE(other.has_value());
  EXPECT_NE(*other, *id);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.get(*id)->ends_at_ms, kT0 + 10);
  clock.set_ms(kT0 + 11);
  EXPECT_EQ(silence_state(*s.get(*id), clock.now_ms()), SilenceState::kExpired);

  // Unknown id.
  auto missing = s.set(sil({m(MatchType::kEqual, "a", "b")}, kT0, kT0 + kH, "nope"));
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error(), "silence not found");

  // Expire: active -> ends now; again -> error; pending -> starts and ends now.
  EXPECT_TRUE(s.expire(*other).is_ok());
  EXPECT_EQ(s.get(*other)->ends_at_ms, kT0 + 11);
  clock.set_ms(kT0 + 12);
  EXPECT_TRUE(s.expire(*other).is_ok()) << "expiring an expired silence is a no-op, as in Alertmanager";
  EXPECT_EQ(s.get(*other)->ends_at_ms, kT0 + 11);
  auto pend = s.set(sil({m(MatchType::kEqual, "x", "y")}, kT0 + kH, kT0 + 2 * kH));
  ASSERT_TRUE(pend.has_value());
  EXPECT_TRUE(s.expire(*pend).is_ok());
  EXPECT_EQ(s.get(*pend)->starts_at_ms, kT0 + 12);
  EXPECT_EQ(s.get(*pend)->ends_at_ms, kT0 + 12);
  EXPECT_EQ(s.expire("nope").message(), "silence not found");

  // A pending silence may move its start as long as it stays in the future.
  auto p2 = s.set(sil({m(MatchType::kEqual, "p", "q")}, kT0 + kH, kT0 + 2 * kH));
  Silence later = *s.get(*p2);
  later.starts_at_ms = kT0 + 3 * kH / 2;
  EXPECT_EQ(*s.set(later), *p2);
}

TEST(Silences, Validation) {
  base::ManualClock clock(kT0);
  Silences s(clock, {});
  struct Case {
    Silence s;
    const char* error;
  } cases[] = {
      {sil({}, kT0, kT0 + kH), "at least one matcher required"},
      {sil({m(MatchType::kEqual, "a", "")}, kT0, kT0 + kH), "at least one matcher must not match the empty string"},
      {sil({m(MatchType::kRegexp, "a", ".*")}, kT0, kT0 + kH), "at least one matcher must not match the empty string"},
      {sil({m(MatchType::kEqual, "a:b", "c")}, kT0, kT0 + kH), "invalid label matcher 0: invalid label name \"a:b\""},
      {sil({m(MatchType::kEqual, "a", "b")}, kT0 + kH, kT0), "end time must not be before start time"},
      {sil({m(MatchType::kEqual, "a", "b")}, kT0, 0), "invalid zero end timestamp"},
  };
  for (const auto& c : cases) {
    auto r = s.set(c.s);
    ASSERT_FALSE(r.has_value()) << c.error;
    EXPECT_EQ(r.error(), std::string("silence invalid: ") + c.error);
  }
  EXPECT_EQ(s.size(), 0u);
}

TEST(Silences, ListOrderAndGc) {
  base::ManualClock clock(kT0);
  Silences s(clock, {.retention_ms = 120 * kH, .rng = counter_rng()});
  auto a1 = *s.set(sil({m(MatchType::kEqual, "n", "a1")}, kT0, kT0 + 3 * kH));
  auto a2 = *s.set(sil({m(MatchType::kEqual, "n", "a2")}, kT0, kT0 + 2 * kH));
  auto p1 = *s.set(sil({m(MatchType::kEqual, "n", "p1")}, kT0 + 2 * kH, kT0 + 5 * kH));
  auto p2 = *s.set(sil({m(MatchType::kEqual, "n", "p2")}, kT0 + kH, kT0 + 5 * kH));
  auto e1 = *s.set(sil({m(MatchType::kEqual, "n", "e1")}, kT0, kT0 + 10));
  auto e2 = *s.set(sil({m(MatchType::kEqual, "n", "e2")}, kT0, kT0 + 20));
  clock.set_ms(kT0 + 30);
  std::vector<std::string> ids;
  for (const auto& x : s.list()) ids.push_back(x.id);
  EXPECT_EQ(ids, (std::vector<std::string>{a2, a1, p2, p1, e2, e1}));

  clock.set_ms(kT0 + 10 + 120 * kH);
  EXPECT_EQ(s.gc(), 0u);  // e1 expires exactly at the retention edge: kept
  clock.set_ms(kT0 + 11 + 120 * kH);
  EXPECT_EQ(s.gc(), 1u);
  EXPECT_FALSE(s.get(e1).has_value());
  EXPECT_TRUE(s.get(e2).has_value());
}

TEST(Silences, UuidV4) {
  auto rng = counter_rng();
  std::set<std::string> seen;
  const std::regex re("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  for (int i = 0; i < 100; ++i) {
    std::string u = uuid_v4(rng);
    EXPECT_TRUE(std::regex_match(u, re)) << u;
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(uuid_v4([] { return 0ULL; }), "00000000-0000-4000-8000-000000000000");
  EXPECT_EQ(uuid_v4([] { return ~0ULL; }), "ffffffff-ffff-4fff-bfff-ffffffffffff");
}

TEST(SilencesPersistence, RoundTripAcrossRestart) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  base::ManualClock clock(kT0);
  std::string id1, id2;
  {
    Silences s(clock, {.dir = dir.path(), .rng = counter_rng()});
    ASSERT_TRUE(s.load().is_ok());
    id1 = *s.set(
        sil({m(MatchType::kRegexp, "instance", "gpu\\d+"), m(MatchType::kNotEqual, "job", "x\"y")}, kT0, kT0 + kH));
    Silence other = sil({m(MatchType::kNotRegexp, "a", "b|c"), m(MatchType::kEqual, "x", "y")}, kT0 + kH, kT0 + 2 * kH);
    other.comment = "unicode \xc3\xa9 and \"quotes\"\n";
    id2 = *s.set(other);
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/silences.json.tmp"));
  }
  Silences s(clock, {.dir = dir.path()});
  ASSERT_TRUE(s.load().is_ok());
  ASSERT_EQ(s.size(), 2u);
  auto a = s.get(id1);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(matchers_to_string(a->matchers), R"({instance=~"gpu\\d+",job!="x\"y"})");
  EXPECT_EQ(a->starts_at_ms, kT0);
  EXPECT_EQ(a->ends_at_ms, kT0 + kH);
  EXPECT_EQ(a->updated_at_ms, kT0);
  EXPECT_EQ(a->created_by, "alice");
  EXPECT_TRUE(s.mutes({{"instance", "gpu12"}}, kT0));
  EXPECT_EQ(s.get(id2)->comment, "unicode \xc3\xa9 and \"quotes\"\n");
  EXPECT_EQ(matchers_to_string(s.get(id2)->matchers), R"({a!~"b|c",x="y"})");
  // Expiry persists too.
  ASSERT_TRUE(s.expire(id1).is_ok());
  Silences again(clock, {.dir = dir.path()});
  ASSERT_TRUE(again.load().is_ok());
  EXPECT_EQ(again.get(id1)->ends_at_ms, kT0);
}

TEST(SilencesPersistence, CorruptFileIsSetAsideAndStartupContinues) {
  base::ManualClock clock(kT0);
  const std::string bad_files[] = {
      "{not json",
      "",
      "[]",
      R"({"version":2,"silences":[]})",
      R"({"version":1,"silences":[{"id":"x"}]})",
      R"({"version":1,"silences":[{"id":"x","matchers":[{"name":"a","value":"(","isRegex":true}],"startsAt":"2023-11-14T22:13:20.000Z","endsAt":"2023-11-14T23:13:20.000Z","createdBy":"a","comment":""}]})",
      std::string("\x00\xff\xfe binary", 10),
  };
  for (const auto& content : bad_files) {
    TempDir dir;
    std::ofstream(dir.path() + "/silences.json", std::ios::binary) << content;
    Silences s(clock, {.dir = dir.path(), .rng = counter_rng()});
    Status st = s.load();
    ASSERT_FALSE(st.is_ok()) << content;
    EXPECT_NE(st.message().find("corrupt silences file"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("silences.json.corrupt-" + std::to_string(kT0)), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/silences.json"));
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/silences.json.corrupt-" + std::to_string(kT0)));
    EXPECT_EQ(s.size(), 0u);
    // Still usable, and writes a fresh file.
    EXPECT_TRUE(s.set(sil({m(MatchType::kEqual, "a", "b")}, kT0, kT0 + kH)).has_value());
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/silences.json"));
  }
}

TEST(SilencesPersistence, MissingFileIsEmptyAndFailedWriteRollsBack) {
  base::ManualClock clock(kT0);
  TempDir dir;
  {
    Silences s(clock, {.dir = dir.path()});
    EXPECT_TRUE(s.load().is_ok());
    EXPECT_EQ(s.size(), 0u);
  }
  Silences s(clock, {.dir = dir.path(), .rng = counter_rng()});
  auto id = s.set(sil({m(MatchType::kEqual, "a", "b")}, kT0, kT0 + kH));
  ASSERT_TRUE(id.has_value());
  // A directory where the temp file goes makes every write fail (even as root).
  std::filesystem::create_directory(dir.path() + "/silences.json.tmp");
  auto r = s.set(sil({m(MatchType::kEqual, "c", "d")}, kT0, kT0 + kH));
  EXPECT_FALSE(r.has_value());
  EXPECT_EQ(s.size(), 1u) << "a change that cannot be persisted is rolled back";
  EXPECT_FALSE(s.expire(*id).is_ok());
  EXPECT_EQ(silence_state(*s.get(*id), kT0), SilenceState::kActive);
  EXPECT_NE(r.error().find("silences.json.tmp"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace llmon::notify
