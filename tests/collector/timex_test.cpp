#include "collector/timex.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "collector_test_util.h"

namespace llmon::collector {
namespace {

using testing::collect_once;
using testing::value_of;

// The families node_exporter 1.5 exposes for timex, with their types, as its
// /metrics page showed them (prometheus-node-exporter --collector.timex). The
// differential test cannot compare timex (node_exporter reads the live
// kernel), so the names and types are checked here.
const std::vector<std::pair<std::string, model::MetricType>> kNodeExporterFamilies = {
    {"node_timex_estimated_error_seconds", model::MetricType::kGauge},
    {"node_timex_frequency_adjustment_ratio", model::MetricType::kGauge},
    {"node_timex_loop_time_constant", model::MetricType::kGauge},
    {"node_timex_maxerror_seconds", model::MetricType::kGauge},
    {"node_timex_offset_seconds", model::MetricType::kGauge},
    {"node_timex_pps_calibration_total", model::MetricType::kCounter},
    {"node_timex_pps_error_total", model::MetricType::kCounter},
    {"node_timex_pps_frequency_hertz", model::MetricType::kGauge},
    {"node_timex_pps_jitter_seconds", model::MetricType::kGauge},
    {"node_timex_pps_jitter_total", model::MetricType::kCounter},
    {"node_timex_pps_shift_seconds", model::MetricType::kGauge},
    {"node_timex_pps_stability_exceeded_total", model::MetricType::kCounter},
    {"node_timex_pps_stability_hertz", model::MetricType::kGauge},
    {"node_timex_status", model::MetricType::kGauge},
    {"node_timex_sync_status", model::MetricType::kGauge},
    {"node_timex_tai_offset_seconds", model::MetricType::kGauge},
    {"node_timex_tick_seconds", model::MetricType::kGauge},
};

struct timex synced_ns() {
  struct timex tx {};
  tx.status = STA_PLL | STA_NANO;  // 0x2001
  tx.offset = -250000;             // ns with STA_NANO
  tx.freq = -1311457;              // ppm << 16
  tx.maxerror = 18500;             // µs
  tx.esterror = 120;
  tx.constant = 7;
  tx.tick = 10000;
  tx.ppsfreq = 655360;
  tx.jitter = 1500;
  tx.shift = 4;
  tx.stabil = 131072;
  tx.jitcnt = 1;
  tx.calcnt = 2;
  tx.errcnt = 3;
  tx.stbcnt = 4;
  tx.tai = 37;
  return tx;
}

// A source answering the same values every cycle.
TimexSource fixed(struct timex value, int state) {
  return [value, state](struct timex& tx) -> Expected<int> {
    tx = value;
    return state;
  };
}

TEST(TimexCollector, FamiliesAndTypesAreNodeExporters) {
  auto c = make_timex_with(fixed(synced_ns(), TIME_OK));
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  std::vector<std::pair<std::string, model::MetricType>> got;
  for (uint32_t i : snap.order) got.emplace_back(snap.families[i].name, snap.families[i].type);
  EXPECT_EQ(got, kNodeExporterFamilies);
  EXPECT_EQ(snap.series_count(), kNodeExporterFamilies.size());
}

TEST(TimexCollector, ValuesScaledAsNodeExporter) {
  auto c = make_timex_with(fixed(synced_ns(), TIME_OK));
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_timex_sync_status", {}), 1);
  EXPECT_EQ(value_of(snap, "node_timex_offset_seconds", {}), -250000 / 1e9);
  EXPECT_EQ(value_of(snap, "node_timex_frequency_adjustment_ratio", {}), 1 + -1311457 / (1000000.0 * 65536.0));
  EXPECT_EQ(value_of(snap, "node_timex_maxerror_seconds", {}), 18500 / 1e6);
  EXPECT_EQ(value_of(snap, "node_timex_estimated_error_seconds", {}), 120 / 1e6);
  EXPECT_EQ(value_of(snap, "node_timex_status", {}), 0x2001);
  EXPECT_EQ(value_of(snap, "node_timex_loop_time_constant", {}), 7);
  EXPECT_EQ(value_of(snap, "node_timex_tick_seconds", {}), 0.01);
  EXPECT_EQ(value_of(snap, "node_timex_pps_frequency_hertz", {}), 655360 / (1000000.0 * 65536.0));
  EXPECT_EQ(value_of(snap, "node_timex_pps_jitter_seconds", {}), 1500 / 1e9);
  EXPECT_EQ(value_of(snap, "node_timex_pps_shift_seconds", {}), 4);
  EXPECT_EQ(value_of(snap, "node_timex_pps_stability_hertz", {}), 131072 / (1000000.0 * 65536.0));
  EXPECT_EQ(value_of(snap, "node_timex_pps_jitter_total", {}), 1);
  EXPECT_EQ(value_of(snap, "node_timex_pps_calibration_total", {}), 2);
  EXPECT_EQ(value_of(snap, "node_timex_pps_error_total", {}), 3);
  EXPECT_EQ(value_of(snap, "node_timex_pps_stability_exceeded_total", {}), 4);
  EXPECT_EQ(value_of(snap, "node_timex_tai_offset_seconds", {}), 37);
}

TEST(TimexCollector, MicrosecondsAndUnsynchronised) {
  // What node_exporter showed on the (unsynchronised) build machine.
  auto c = make_timex_with([](struct timex& tx) -> Expected<int> {
    tx = {};
    tx.status = STA_UNSYNC;  // 64
    tx.offset = 1500;        // µs without STA_NANO
    tx.jitter = 20;
    tx.maxerror = 16000000;
    tx.esterror = 16000000;
    tx.constant = 2;
    tx.tick = 10000;
    return TIME_ERROR;
  });
  model::Snapshot snap;
  ASSERT_TRUE(collect_once(*c, snap));
  EXPECT_EQ(value_of(snap, "node_timex_sync_status", {}), 0);
  EXPECT_EQ(value_of(snap, "node_timex_status", {}), 64);
  EXPECT_EQ(value_of(snap, "node_timex_offset_seconds", {}), 0.0015);
  EXPECT_EQ(value_of(snap, "node_timex_pps_jitter_seconds", {}), 20 / 1e6);
  EXPECT_EQ(value_of(snap, "node_timex_maxerror_seconds", {}), 16);
  EXPECT_EQ(value_of(snap, "node_timex_frequency_adjustment_ratio", {}), 1);
}

TEST(TimexCollector, SourceErrorFailsTheCycle) {
  auto c = make_timex_with([](struct timex&) -> Expected<int> { return Status::error("adjtimex: boom"); });
  model::Snapshot snap;
  Status s = collect_once(*c, snap);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "failed to retrieve adjtimex stats: adjtimex: boom");
  EXPECT_EQ(snap.series_count(), 0u);
}

TEST(TimexCollector, SystemCallAnswers) {
  struct timex tx {};
  auto state = system_adjtimex(tx);
  ASSERT_TRUE(state) << state.error();
  EXPECT_GE(*state, TIME_OK);
  EXPECT_LE(*state, TIME_ERROR);
  EXPECT_GT(tx.tick, 0);
}

}  // namespace
}  // namespace llmon::collector
