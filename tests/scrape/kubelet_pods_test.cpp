#include "scrape/kubelet_pods.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace llmon::scrape {
namespace {

std::string fixture() {
  std::ifstream f(std::string(LLMON_SOURCE_DIR) + "/tests/fixtures/kubelet/pods.json");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  for (size_t p; (p = s.find("@PORT@")) != std::string::npos;) s.replace(p, 6, "8000");
  return s;
}

std::string get(const TargetGroup& g, const std::string& name) {
  for (const auto& l : g.labels)
    if (l.name == name) return l.value;
  return "";
}

TEST(KubeletPods, AnnotatedRunningPodsBecomeTargets) {
  auto groups = parse_kubelet_pods(fixture(), "pods.json");
  ASSERT_TRUE(groups.has_value()) << groups.error();
  ASSERT_EQ(groups->size(), 3u);
  const auto& vllm = (*groups)[0];
  EXPECT_EQ(vllm.targets, std::vector<std::string>{"127.0.0.1:8000"});
  EXPECT_EQ(get(vllm, "namespace"), "serving");
  EXPECT_EQ(get(vllm, "pod"), "vllm-llama-7f9c");
  EXPECT_EQ(get(vllm, "container"), "vllm");
  EXPECT_EQ(get(vllm, "node"), "gpu-node-1");
  EXPECT_EQ(get(vllm, "__metrics_path__"), "/vllm");
  EXPECT_EQ(get(vllm, "__scheme__"), "http");
  // No port annotation: the port named "metrics", of its container.
  const auto& trainer = (*groups)[1];
  EXPECT_EQ(trainer.targets, std::vector<std::string>{"10.244.1.17:8001"});
  EXPECT_EQ(get(trainer, "container"), "trainer");
  EXPECT_EQ(get(trainer, "__metrics_path__"), "/metrics");
  // Host network on IPv6, https, a path without its slash.
  const auto& dcgm = (*groups)[2];
  EXPECT_EQ(dcgm.targets, std::vector<std::string>{"[fd00::17]:9400"});
  EXPECT_EQ(get(dcgm, "__scheme__"), "https");
  EXPECT_EQ(get(dcgm, "__metrics_path__"), "/metrics");
  EXPECT_EQ(get(dcgm, "container"), "");
}

TEST(KubeletPods, BadInput) {
  EXPECT_FALSE(parse_kubelet_pods("<html>", "u").has_value());
  EXPECT_FALSE(parse_kubelet_pods(R"({"items": 3})", "u").has_value());
  auto empty = parse_kubelet_pods(R"({"items": null})", "u");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
  auto bad_port = parse_kubelet_pods(
      R"({"items":[{"metadata":{"name":"a","annotations":{"prometheus.io/scrape":"true","prometheus.io/port":"x"}},)"
      R"("status":{"phase":"Running","podIP":"1.2.3.4"}}]})",
      "u");
  ASSERT_TRUE(bad_port.has_value());
  EXPECT_TRUE(bad_port->empty());
}

}  // namespace
}  // namespace llmon::scrape
