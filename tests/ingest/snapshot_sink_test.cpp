#include "ingest/snapshot_sink.h"

#include <gtest/gtest.h>

#include <memory>

#include "tsdb/head.h"

namespace llmon::ingest {
namespace {

using tsdb::Head;

using Type = model::Matcher::Type;

model::Family family(std::string name, std::vector<std::string> label_names,
                     std::vector<std::pair<std::vector<std::string>, double>> series) {
  model::Family f;
  f.name = std::move(name);
  f.type = model::MetricType::kGauge;
  f.label_names = std::move(label_names);
  for (auto& [values, v] : series) f.series.push_back({values, v});
  return f;
}

std::vector<model::Sample> samples_of(storage::Storage& st, std::vector<model::Matcher> ms,
                                      model::Labels* labels = nullptr) {
  auto q = st.querier(0, 1'000'000);
  auto set = (*q)->select(0, 1'000'000, ms);
  std::vector<model::Sample> out;
  if (!set->next()) return out;
  if (labels != nullptr) *labels = set->at().labels();
  auto it = set->at().iterator();
  while (it->next()) out.push_back(it->at());
  EXPECT_FALSE(set->next()) << "expected one series";
  return out;
}

TEST(SnapshotSink, AppendsOneCommitPerCycleWithNameLabel) {
  Head head;
  SnapshotSink sink(head);
  model::Snapshot snap;
  snap.families.push_back(family("gpu_temp", {"gpu", "uuid"}, {{{"0", "GPU-a"}, 40}, {{"1", "GPU-b"}, 50}}));
  snap.families.push_back(family("up", {}, {{{}, 1}}));
  for (int c = 1; c <= 3; ++c) {
    snap.timestamp_ms = c * 1000;
    snap.families[0].series[1].value = 50 + c;
    ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  }
  model::Labels labels;
  auto got = samples_of(head, {{Type::kEq, "__name__", "gpu_temp"}, {Type::kEq, "gpu", "1"}}, &labels);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].t_ms, 3000);
  EXPECT_EQ(got[2].v, 53);
  EXPECT_EQ(labels.get("uuid"), "GPU-b");
  EXPECT_EQ(samples_of(head, {{Type::kEq, "__name__", "up"}}).size(), 3u);
  auto st = sink.stats();
  EXPECT_EQ(st.cycles, 3u);
  EXPECT_EQ(st.samples, 9u);
  // Labels built in the first cycle only: steady state reuses them.
  EXPECT_EQ(st.labels_built, 3u);
}

TEST(SnapshotSink, VanishedSeriesGetsStaleMarkerOnce) {
  Head head;
  SnapshotSink sink(head);
  model::Snapshot snap;
  snap.timestamp_ms = 1000;
  snap.families.push_back(family("proc_cpu", {"pid"}, {{{"10"}, 1}, {{"11"}, 2}}));
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  snap.timestamp_ms = 2000;
  snap.families[0].series.erase(snap.families[0].series.begin());  // pid 10 exits
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  snap.timestamp_ms = 3000;
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  auto gone = samples_of(head, {{Type::kEq, "pid", "10"}});
  ASSERT_EQ(gone.size(), 2u);
  EXPECT_EQ(gone[1].t_ms, 2000);
  EXPECT_TRUE(model::is_stale(gone[1].v));
  auto kept = samples_of(head, {{Type::kEq, "pid", "11"}});
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_FALSE(model::is_stale(kept[2].v));
  EXPECT_EQ(sink.stats().stale_markers, 1u);
  EXPECT_EQ(sink.cached_series(), 1u);
  // It comes back: a new sample after the marker, labels rebuilt.
  snap.timestamp_ms = 4000;
  snap.families[0].series.insert(snap.families[0].series.begin(), model::Series{{"10"}, 7});
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  gone = samples_of(head, {{Type::kEq, "pid", "10"}});
  ASSERT_EQ(gone.size(), 3u);
  EXPECT_EQ(gone[2].v, 7);
}

TEST(SnapshotSink, ReorderedSeriesKeepIdentity) {
  Head head;
  SnapshotSink sink(head);
  model::Snapshot snap;
  snap.timestamp_ms = 1000;
  snap.families.push_back(family("m", {"k"}, {{{"a"}, 1}, {{"b"}, 2}}));
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  snap.timestamp_ms = 2000;
  std::swap(snap.families[0].series[0], snap.families[0].series[1]);
  snap.families[0].series[0].value = 20;  // b
  snap.families[0].series[1].value = 10;  // a
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  auto a = samples_of(head, {{Type::kEq, "k", "a"}});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].v, 10);
  auto b = samples_of(head, {{Type::kEq, "k", "b"}});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].v, 20);
  EXPECT_EQ(sink.stats().stale_markers, 0u);
  EXPECT_EQ(sink.stats().labels_built, 2u);  // found again by key, not rebuilt
}

TEST(SnapshotSink, InvalidLabelsAndRejectionsCounted) {
  Head head;
  SnapshotSink sink(head);
  model::Snapshot snap;
  snap.timestamp_ms = 2000;
  snap.families.push_back(family("bad", {"x", "x"}, {{{"1", "2"}, 1}}));  // duplicate label name
  snap.families.push_back(family("ok", {}, {{{}, 1}}));
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  snap.timestamp_ms = 1000;  // clock went backwards
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  auto st = sink.stats();
  EXPECT_EQ(st.invalid_series, 2u);
  EXPECT_EQ(st.rejected, 1u);
  EXPECT_EQ(head.counters().out_of_order, 1u);
  EXPECT_EQ(samples_of(head, {{Type::kEq, "__name__", "ok"}}).size(), 1u);
}

TEST(SnapshotSink, RecreatesSeriesRemovedByRetention) {
  Head head;
  SnapshotSink sink(head);
  model::Snapshot snap;
  snap.families.push_back(family("m", {}, {{{}, 1}}));
  snap.timestamp_ms = 1000;
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  EXPECT_EQ(head.truncate_before(5000).series_removed, 1u);
  snap.timestamp_ms = 6000;
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  auto got = samples_of(head, {{Type::kEq, "__name__", "m"}});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].t_ms, 6000);
}

TEST(SnapshotSink, WorksAsSchedulerSink) {
  Head head;
  SnapshotSink sink(head);
  collector::SampleSink& as_sink = sink;
  auto snap = std::make_shared<model::Snapshot>();
  snap->timestamp_ms = 1000;
  snap->families.push_back(family("m", {}, {{{}, 3}}));
  as_sink.append(snap);
  as_sink.append(nullptr);
  EXPECT_EQ(sink.stats().cycles, 1u);
  EXPECT_EQ(samples_of(head, {{Type::kEq, "__name__", "m"}}).size(), 1u);
}

SnapshotSinkOptions target(std::string job, std::string instance) {
  return SnapshotSinkOptions{{{"job", std::move(job)}, {"instance", std::move(instance)}}};
}

TEST(SnapshotSink, TargetLabelsOnEverySeries) {
  Head head;
  SnapshotSink sink(head, target("llmon", "host:8747"));
  model::Snapshot snap;
  snap.timestamp_ms = 1000;
  snap.families.push_back(family("node_load1", {}, {{{}, 0.5}}));
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  model::Labels labels;
  ASSERT_EQ(samples_of(head, {{Type::kEq, "__name__", "node_load1"}}, &labels).size(), 1u);
  EXPECT_EQ(labels.to_string(), R"({__name__="node_load1", instance="host:8747", job="llmon"})");
}

TEST(SnapshotSink, ExposedJobAndInstanceBecomeExported) {
  // honor_labels: false: the target's labels win, the exposed ones are kept
  // as exported_<name>, prefixed again while that name is taken.
  Head head;
  SnapshotSink sink(head, target("llmon", "host:8747"));
  model::Snapshot snap;
  snap.timestamp_ms = 1000;
  snap.families.push_back(family("a", {"instance", "job"}, {{{"other:1", "x"}, 1}}));
  snap.families.push_back(family("b", {"exported_job", "job"}, {{{"e", "x"}, 2}}));
  snap.families.push_back(family("c", {"job"}, {{{""}, 3}}));  // empty: absent, nothing to keep
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  model::Labels labels;
  samples_of(head, {{Type::kEq, "__name__", "a"}}, &labels);
  EXPECT_EQ(labels.to_string(),
            R"({__name__="a", exported_instance="other:1", exported_job="x", instance="host:8747", job="llmon"})");
  samples_of(head, {{Type::kEq, "__name__", "b"}}, &labels);
  EXPECT_EQ(labels.to_string(),
            R"({__name__="b", exported_exported_job="x", exported_job="e", instance="host:8747", job="llmon"})");
  samples_of(head, {{Type::kEq, "__name__", "c"}}, &labels);
  EXPECT_EQ(labels.to_string(), R"({__name__="c", instance="host:8747", job="llmon"})");
}

TEST(SnapshotSink, ReportSeriesPerCycle) {
  Head head;
  SnapshotSink sink(head, target("llmon", "h:1"));
  model::Snapshot snap;
  snap.families.push_back(family("m", {"k"}, {{{"1"}, 1}, {{"2"}, 2}}));
  snap.families.push_back(family("bad", {"k", "k"}, {{{"a", "b"}, 1}}));  // invalid: scraped, not added
  snap.timestamp_ms = 1000;
  snap.duration_seconds = 0.25;
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  snap.families[0].series.push_back({{"3"}, 3});
  snap.timestamp_ms = 2000;
  snap.duration_seconds = 0.5;
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  auto values = [&](std::string name) {
    model::Labels labels;
    std::vector<double> v;
    for (const auto& s : samples_of(head, {{Type::kEq, "__name__", name}}, &labels)) v.push_back(s.v);
    EXPECT_EQ(labels.to_string(), "{__name__=\"" + name + R"(", instance="h:1", job="llmon"})");
    return v;
  };
  EXPECT_EQ(values("up"), (std::vector<double>{1, 1}));
  EXPECT_EQ(values("scrape_duration_seconds"), (std::vector<double>{0.25, 0.5}));
  EXPECT_EQ(values("scrape_samples_scraped"), (std::vector<double>{3, 4}));
  EXPECT_EQ(values("scrape_samples_post_metric_relabeling"), (std::vector<double>{2, 3}));
  EXPECT_EQ(values("scrape_series_added"), (std::vector<double>{2, 1}));
  EXPECT_EQ(sink.stats().samples, 2u + 5 + 3 + 5);
}

TEST(SnapshotSink, NoTargetLabelsNoReportSeries) {
  Head head;
  SnapshotSink sink(head);
  model::Snapshot snap;
  snap.timestamp_ms = 1000;
  snap.families.push_back(family("m", {}, {{{}, 1}}));
  ASSERT_TRUE(sink.append_snapshot(snap).is_ok());
  EXPECT_TRUE(samples_of(head, {{Type::kEq, "__name__", "up"}}).empty());
  model::Labels labels;
  samples_of(head, {{Type::kEq, "__name__", "m"}}, &labels);
  EXPECT_EQ(labels.to_string(), R"({__name__="m"})");
}

}  // namespace
}  // namespace llmon::ingest
