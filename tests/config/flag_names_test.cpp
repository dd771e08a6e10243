// The flag constants (config/flag_names.h) against the flag table: one
// constant per static row, same name and kind, and the only ways to read a
// Settings value are a constant or a checked run-time name. Likewise for the
// collectors' options (collector/options.h): each a row of the table of the
// same kind, read from a CollectorContext by constant only.
#include "config/flag_names.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "collector/collector.h"
#include "collector/options.h"
#include "collector/registry.h"
#include "config/flags.h"
#include "config/settings.h"

namespace llmon::config {
namespace {

template <typename T>
concept SettingsKey = requires(const Settings& s, T key) { s.get(key); };

// A name typed out does not compile; neither does a kind-less FlagRef.
static_assert(!SettingsKey<const char*>);
static_assert(!SettingsKey<std::string>);
static_assert(!SettingsKey<std::string_view>);
static_assert(!SettingsKey<FlagRef>);
static_assert(!std::is_convertible_v<const char*, StringFlag>);
// Each kind reads back as its C++ type.
static_assert(std::is_same_v<decltype(std::declval<const Settings&>().get(flag::kStoragePath)), const std::string&>);
static_assert(std::is_same_v<decltype(std::declval<const Settings&>().get(flag::kJson)), bool>);
static_assert(std::is_same_v<decltype(std::declval<const Settings&>().get(flag::kQueryTimeout)), int64_t>);
static_assert(std::is_same_v<decltype(std::declval<const Settings&>().get(flag::kWebMaxRequests)), int64_t>);
static_assert(std::is_same_v<decltype(std::declval<const Settings&>().get(flag::kStorageRetentionSize)), uint64_t>);
static_assert(std::is_same_v<decltype(std::declval<const Settings&>().get(flag::kCollectorVmstatFields)),
                             const std::string&>);

template <typename T>
concept ContextKey = requires(const collector::CollectorContext& c, T key) {
  c.option(key);
};

// Nor does an option typed out; a kind the collectors do not read has no overload.
static_assert(!ContextKey<const char*>);
static_assert(!ContextKey<std::string>);
static_assert(!ContextKey<std::string_view>);
static_assert(!ContextKey<FlagRef>);
static_assert(!ContextKey<IntFlag>);
// Each kind the collectors read comes back as its C++ type.
template <typename Key>
using ContextValue = decltype(std::declval<const collector::CollectorContext&>().option(std::declval<Key>()));
static_assert(std::is_same_v<ContextValue<DurationFlag>, int64_t>);
static_assert(std::is_same_v<ContextValue<BoolFlag>, bool>);
static_assert(std::is_same_v<ContextValue<StringFlag>, const std::string&>);
static_assert(std::is_same_v<ContextValue<RegexFlag>, const std::string&>);
// config::flag names the collectors' constants themselves, not copies.
constexpr bool same_object(const FlagRef& a, const FlagRef& b) {
  return &a == &b;
}
static_assert(same_object(flag::kCollectorGpuTimeout, collector::flag::kCollectorGpuTimeout));
static_assert(same_object(flag::kPathUdevData, collector::flag::kPathUdevData));

bool is_collector_switch(const FlagSpec& f) {
  for (const auto& c : collector::builtin_collectors())
    if (f.name == collector_switch_name(c.name)) return true;
  return false;
}

TEST(FlagNames, EveryConstantIsOneRowOfTheSameKind) {
  for (const FlagRef& c : flag::kAll) {
    int rows = 0;
    for (const auto& f : flag_table()) {
      if (f.name != c.name) continue;
      ++rows;
      EXPECT_EQ(f.kind, c.kind) << c.name << ": the constant's kind differs from the table's";
    }
    EXPECT_EQ(rows, 1) << c.name;
  }
}

TEST(FlagNames, EveryRowHasAConstantOrIsACollectorSwitch) {
  for (const auto& f : flag_table()) {
    int constants = 0;
    for (const FlagRef& c : flag::kAll) constants += c.name == f.name ? 1 : 0;
    if (is_collector_switch(f)) {
      EXPECT_EQ(constants, 0) << f.name << ": a collector switch needs no constant";
      EXPECT_EQ(f.kind, FlagKind::kBool) << f.name;
    } else {
      EXPECT_EQ(constants, 1) << f.name << ": add it to config/flag_names.h (and kAll)";
    }
  }
}

// A CollectorContext holds exactly the options of collector::flag::kAll
// (app::collector_context, the collector tests' fixture_context): each must be
// a row of the flag table of the same kind, and a constant of config::flag.
TEST(FlagNames, EveryCollectorOptionIsARowOfTheSameKind) {
  for (const FlagRef& c : collector::flag::kAll) {
    const FlagSpec* f = find_flag(c.name);
    ASSERT_NE(f, nullptr) << c.name << ": a collector option without a row in the flag table (flags.cpp)";
    EXPECT_EQ(f->kind, c.kind) << c.name << ": the collector constant's kind differs from the table's";
    int constants = 0;
    for (const FlagRef& k : flag::kAll) constants += k.name == c.name ? 1 : 0;
    EXPECT_EQ(constants, 1) << c.name << ": add it to config/flag_names.h (a using-declaration) and kAll";
  }
}

TEST(FlagNames, RunTimeNamesAreChecked) {
  auto ok = checked_flag<FlagKind::kDuration>("collect.interval");
  ASSERT_TRUE(ok) << ok.error();
  EXPECT_EQ(ok->name, flag::kCollectInterval.name);

  auto unknown = checked_flag<FlagKind::kString>("storage.pth");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error(), "unknown flag --storage.pth");

  auto wrong_kind = checked_flag<FlagKind::kBool>("collect.interval");
  ASSERT_FALSE(wrong_kind);
  EXPECT_EQ(wrong_kind.error(), "flag --collect.interval is a duration, not a bool");

  EXPECT_TRUE(collector_switch("loadavg"));
  auto no_collector = collector_switch("nope");
  ASSERT_FALSE(no_collector);
  EXPECT_EQ(no_collector.error(), "unknown flag --collector.nope");
}

TEST(FlagNames, TypedValuesAndOrigins) {
  auto s = load({"agent", "--storage.retention.size=10GB", "--web.max-requests=7", "--rules.defaults=false",
                 "--collector.gpu.events=true"},
                {});
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->get(flag::kStorageRetentionSize), uint64_t{10} << 30);
  EXPECT_EQ(s->get(flag::kStorageMinFreeSpace), uint64_t{256} << 20);
  EXPECT_EQ(s->get(flag::kWebMaxRequests), 7);
  EXPECT_EQ(s->get(flag::kQueryTimeout), 120'000);
  EXPECT_FALSE(s->get(flag::kRulesDefaults));
  EXPECT_EQ(s->get(flag::kStoragePath), "llmon-data");
  EXPECT_TRUE(s->is_default(flag::kStoragePath));
  EXPECT_EQ(s->origin_of(flag::kWebMaxRequests), "flag");

  Settings copy = *s;
  copy.replace_default(flag::kStoragePath, "/elsewhere");
  copy.replace_default(flag::kCollectorGpuEvents, "false");
  EXPECT_EQ(copy.get(flag::kStoragePath), "/elsewhere");
  EXPECT_TRUE(copy.is_default(flag::kStoragePath));
  EXPECT_TRUE(copy.get(flag::kCollectorGpuEvents)) << "set on the command line: kept";
}

}  // namespace
}  // namespace llmon::config
