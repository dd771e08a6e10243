// Each tests/fixtures/traces/NAME.json (or .json.gz) against
// NAME.expected.json: the expectations are data, a subset of the report JSON
// (docs/trace.md#json) whose numbers were computed by hand from HTA's
// definitions; any implementation can be checked against them. Objects
// compare by the keys the expectation names, arrays element by element,
// numbers within 1e-6 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trace/analysis.h"
#include "trace/kernel_type.h"
#include "trace/load.h"
#include "trace/report_json.h"

namespace llmon::trace {
namespace {

const std::string kDir = std::string(LLMON_SOURCE_DIR) + "/tests/fixtures/traces/";

void expect_subset(const nlohmann::json& want, const nlohmann::json& got, const std::string& where) {
  if (want.is_object()) {
    ASSERT_TRUE(got.is_object()) << where;
    for (const auto& [k, v] : want.items()) {
      if (k == "_comment") continue;
      ASSERT_TRUE(got.contains(k)) << where << "." << k << " missing in " << got.dump();
      expect_subset(v, got[k], where + "." + k);
    }
  } else if (want.is_array()) {
    ASSERT_TRUE(got.is_array()) << where;
    ASSERT_EQ(want.size(), got.size()) << where << ": " << got.dump();
    for (size_t i = 0; i < want.size(); ++i) expect_subset(want[i], got[i], where + "[" + std::to_string(i) + "]");
  } else if (want.is_number() && got.is_number()) {
    double w = want.get<double>(), g = got.get<double>();
    EXPECT_LE(std::fabs(w - g), 1e-6 * std::max(1.0, std::fabs(w))) << where << ": want " << w << ", got " << g;
  } else {
    EXPECT_EQ(want, got) << where;
  }
}

nlohmann::json rank_of(const std::string& path) {
  ParseStats stats;
  auto data = load_trace_file(path, &stats);
  EXPECT_TRUE(data) << data.error();
  if (!data) return {};
  FileReport f;
  f.path = path;
  f.bytes = stats.bytes;
  f.report = analyze(*data);
  f.data = std::move(*data);
  return rank_json(f);
}

void check(const std::string& trace, const std::string& expected) {
  std::ifstream in(kDir + expected);
  ASSERT_TRUE(in) << expected;
  nlohmann::json want = nlohmann::json::parse(in);
  expect_subset(want, rank_of(kDir + trace), trace);
}

TEST(TraceFixtures, OneStep) {
  check("one_step.json", "one_step.expected.json");
}
TEST(TraceFixtures, TwoStepsNs) {
  check("two_steps_ns.json", "two_steps_ns.expected.json");
}
TEST(TraceFixtures, Analyses) {
  check("analyses.json", "analyses.expected.json");
}
TEST(TraceFixtures, LegacyCpuOnly) {
  check("legacy_cpu.json", "legacy_cpu.expected.json");
}

// A directory of ranks: the stragglers object of `trace analyze --json DIR`.
TEST(TraceFixtures, TwoRanksStragglers) {
  std::vector<RankCollectives> ranks;
  for (const char* f : {"two_ranks/rank0.json", "two_ranks/rank1.json"}) {
    auto data = load_trace_file(kDir + f);
    ASSERT_TRUE(data) << data.error();
    ranks.push_back(collectives_of(analyze(*data)));
  }
  std::ifstream in(kDir + "two_ranks.expected.json");
  ASSERT_TRUE(in);
  expect_subset(nlohmann::json::parse(in), stragglers_json(find_stragglers(ranks, 10)), "two_ranks");
}

// `trace diff one_step.json two_steps_ns.json`, expected by hand.
TEST(TraceFixtures, Diff) {
  std::vector<DiffSideRank> side[2];
  const char* files[2] = {"one_step.json", "two_steps_ns.json"};
  for (int i = 0; i < 2; ++i) {
    auto data = load_trace_file(kDir + files[i]);
    ASSERT_TRUE(data) << data.error();
    side[i].push_back(diff_side_of(analyze(*data)));
  }
  std::ifstream in(kDir + "one_step_vs_two_steps_ns.diff.expected.json");
  ASSERT_TRUE(in);
  expect_subset(nlohmann::json::parse(in), diff_json(diff_traces(side[0], side[1], 10)), "diff");
}

TEST(TraceFixtures, GzipGivesTheSameReport) {
  nlohmann::json a = rank_of(kDir + "two_steps_ns.json"), b = rank_of(kDir + "two_steps_ns.json.gz");
  a.erase("file");
  b.erase("file");
  EXPECT_EQ(a, b);
}

TEST(TraceFixtures, EveryFixtureHasItsExpectation) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(kDir)) {
    std::string name = e.path().filename().string();
    if (!name.ends_with(".json") || name.ends_with(".expected.json")) continue;
    EXPECT_TRUE(std::filesystem::exists(kDir + name.substr(0, name.size() - 5) + ".expected.json")) << name;
    ++n;
  }
  EXPECT_GE(n, 2);
}

TEST(TraceAnalysis, UnionLengthAndTemporalBreakdown) {
  EXPECT_EQ(union_length({}), 0);
  EXPECT_EQ(union_length({{5, 10}, {0, 3}, {2, 4}, {10, 12}}), 4 + 7);
  std::vector<Span> k(2);
  k[0].ts = 0;
  k[0].dur = 10;
  k[0].name = 0;
  k[1].ts = 20;
  k[1].dur = 10;
  k[1].name = 1;
  Temporal t = temporal_breakdown(k, {true, false});
  EXPECT_EQ(t.kernel_time, 30);
  EXPECT_EQ(t.idle, 10);
  EXPECT_EQ(t.compute, 10);
  EXPECT_EQ(t.non_compute, 10);
  EXPECT_EQ(temporal_breakdown({}, {}).kernel_time, 0);
}

TEST(TraceKernelType, HtaPatterns) {
  EXPECT_EQ(kernel_type("ncclDevKernel_AllGather_RING_LL"), KernelType::kCommunication);
  EXPECT_EQ(kernel_type("void ncclKernel_AllReduce(...)"), KernelType::kCommunication);
  EXPECT_EQ(kernel_type("hccl_all_reduce"), KernelType::kCommunication);
  EXPECT_EQ(kernel_type("Memcpy DtoD (Device -> Device)"), KernelType::kMemory);
  EXPECT_EQ(kernel_type("Memset (Device)"), KernelType::kMemory);
  EXPECT_EQ(kernel_type("dma_request"), KernelType::kMemory);
  EXPECT_EQ(kernel_type("hipMemcpy"), KernelType::kCommunication);  // ^hip comes first, as in HTA
  EXPECT_EQ(kernel_type("volta_sgemm_128x64_nn"), KernelType::kComputation);
  EXPECT_EQ(kernel_type("cudaStreamSynchronize"), KernelType::kOther);
  EXPECT_EQ(kernel_type("Stream Wait Event"), KernelType::kOther);
  EXPECT_EQ(kernel_type("job_exe_42"), KernelType::kOther);
  EXPECT_EQ(kernel_class("flash_fwd_kernel"), KernelClass::kAttention);
  EXPECT_EQ(kernel_class("sm90_xmma_gemm_bf16"), KernelClass::kGemm);
  EXPECT_EQ(kernel_class("void at::native::vectorized_layer_norm_kernel<float>"), KernelClass::kNorm);
  EXPECT_EQ(kernel_class("void at::native::vectorized_elementwise_kernel<4>"), KernelClass::kElementwise);
  EXPECT_EQ(kernel_class("some_custom_op"), KernelClass::kOtherCompute);
}

}  // namespace
}  // namespace llmon::trace
