// The applications section of `llmon snapshot` (summary/app_summary.h).
#include "summary/app_summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace llmon::summary {
namespace {

GpuSummary two_gpus() {
  GpuSummary g;
  for (const char* i : {"0", "1"}) {
    GpuRow r;
    r.index = i;
    r.util_pct = 97;
    r.mem_used_bytes = 70.0 * (1 << 30);
    r.mem_total_bytes = 80.0 * (1 << 30);
    g.gpus.push_back(r);
    GpuProcess p;
    p.gpu = i;
    p.pid = "4242";
    p.gpu_mem_bytes = 60.0 * (1 << 30);
    g.processes.push_back(p);
  }
  GpuProcess other;
  other.gpu = "1";
  other.pid = "999";
  g.processes.push_back(other);
  return g;
}

std::vector<AppRow> rows() {
  AppRow v;
  v.job = "vllm";
  v.instance = "127.0.0.1:8000";
  v.up = true;
  v.pid = "4242";
  v.engine = "vllm";
  v.kind = "serving";
  v.values = {{"running", 24},      {"waiting", 3},    {"kv_cache", 0.42},
              {"ttft_p50", 0.0998}, {"ttft_p99", 1.2}, {"gen_tps", 812}};
  AppRow down;
  down.job = "train";
  down.instance = "127.0.0.1:9000";
  down.error = "connect 127.0.0.1:9000: Connection refused";
  return {v, down};
}

TEST(AppSummary, GpusJoinOnPid) {
  auto apps = rows();
  attach_gpus(apps, two_gpus());
  EXPECT_EQ(apps[0].gpus, (std::vector<std::string>{"0", "1"}));
  EXPECT_DOUBLE_EQ(apps[0].gpu_mem_bytes.at("1"), 60.0 * (1 << 30));
  EXPECT_TRUE(apps[1].gpus.empty());
}

TEST(AppSummary, TextShowsHeadlinesNextToTheirGpus) {
  auto apps = rows();
  const GpuSummary g = two_gpus();
  attach_gpus(apps, g);
  std::string out;
  format_apps_text(apps, g, out);
  EXPECT_EQ(out,
            "\nAPPS  job              instance               engine        pid health headline\n"
            "      vllm             127.0.0.1:8000         vllm         4242 up     running 24  waiting 3  KV 42%  "
            "TTFT p50 99.8 ms p99 1.2 s  gen 812 tok/s\n"
            "        on GPU 0  util 97%  mem 70.0/80.0 GiB  (this process 60.0 GiB)\n"
            "        on GPU 1  util 97%  mem 70.0/80.0 GiB  (this process 60.0 GiB)\n"
            "      train            127.0.0.1:9000         -               - down   connect 127.0.0.1:9000: Connection "
            "refused\n");
  std::string none;
  format_apps_text({}, g, none);
  EXPECT_EQ(none, "");
}

TEST(AppSummary, Json) {
  auto apps = rows();
  apps[0].values["loss"] = NAN;
  attach_gpus(apps, two_gpus());
  nlohmann::json j;
  add_apps_json(apps, j);
  ASSERT_EQ(j["applications"].size(), 2u);
  EXPECT_EQ(j["applications"][0]["health"], "up");
  EXPECT_EQ(j["applications"][0]["values"]["running"], 24);
  EXPECT_TRUE(j["applications"][0]["values"]["loss"].is_null());
  EXPECT_EQ(j["applications"][0]["gpus"], nlohmann::json::array({"0", "1"}));
  EXPECT_EQ(j["applications"][1]["error"], "connect 127.0.0.1:9000: Connection refused");
}

}  // namespace
}  // namespace llmon::summary
