#include "procfs/kubelet_logs.h"

#include <gtest/gtest.h>

#include <string>

namespace llmon::procfs {
namespace {

constexpr std::string_view kId = "054d13bf1d921b1f857ca03932dc11f581bb7ff778b34aba4eb83ca50f7a0eff";

TEST(KubeletLogs, ContainerLogName) {
  auto c = parse_container_log_name("llama-train-0_research_trainer-" + std::string(kId) + ".log");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->pod, "llama-train-0");
  EXPECT_EQ(c->namespace_, "research");
  EXPECT_EQ(c->container, "trainer");
  EXPECT_EQ(c->container_id, kId);
  // Container names hold dashes; the id is what follows the last one.
  auto d = parse_container_log_name("nvidia-device-plugin-daemonset-5xk8c_kube-system_nvidia-device-plugin-ctr-" +
                                    std::string(kId) + ".log");
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->pod, "nvidia-device-plugin-daemonset-5xk8c");
  EXPECT_EQ(d->namespace_, "kube-system");
  EXPECT_EQ(d->container, "nvidia-device-plugin-ctr");
  EXPECT_EQ(d->container_id, kId);
  // Pod names may hold dots (DNS subdomains).
  auto e = parse_container_log_name("web.v2-0_default_a-" + std::string(kId) + ".log");
  ASSERT_TRUE(e) << e.error();
  EXPECT_EQ(e->pod, "web.v2-0");
  EXPECT_EQ(e->container, "a");
}

TEST(KubeletLogs, ContainerLogNameRejects) {
  std::string id(kId);
  EXPECT_FALSE(parse_container_log_name(""));
  EXPECT_FALSE(parse_container_log_name(".log"));
  EXPECT_FALSE(parse_container_log_name("pod_ns_c-" + id));                     // no .log
  EXPECT_FALSE(parse_container_log_name("pod_ns_c-" + id + ".log.1"));          // rotated, not the link
  EXPECT_FALSE(parse_container_log_name("pod_c-" + id + ".log"));               // no namespace
  EXPECT_FALSE(parse_container_log_name("a_pod_ns_c-" + id + ".log"));          // one '_' too many
  EXPECT_FALSE(parse_container_log_name("pod_ns_-" + id + ".log"));             // empty container
  EXPECT_FALSE(parse_container_log_name("_ns_c-" + id + ".log"));               // empty pod
  EXPECT_FALSE(parse_container_log_name("pod__c-" + id + ".log"));              // empty namespace
  EXPECT_FALSE(parse_container_log_name("pod_ns_c" + id + ".log"));             // no '-' before the id
  EXPECT_FALSE(parse_container_log_name("pod_ns_c-" + id.substr(1) + ".log"));  // 63 digits
  std::string upper = id;
  upper[3] = 'D';
  EXPECT_FALSE(parse_container_log_name("pod_ns_c-" + upper + ".log"));
  // The kubelet cuts names over 255 bytes, losing the id.
  std::string cut = "pod_ns_" + std::string(200, 'c') + "-" + id + ".log";
  EXPECT_FALSE(parse_container_log_name(cut.substr(0, 251) + ".log"));
  auto bad = parse_container_log_name("x.log");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("\"x.log\""), std::string::npos) << bad.error();
  EXPECT_FALSE(parse_container_log_name(std::string("p\0d_ns_c-", 9) + id + ".log"));
}

TEST(KubeletLogs, PodLogDir) {
  auto p = parse_pod_log_dir("batch_eval-job-x7k2p_e9a07b35-2c4d-4f81-8e6a-0b3d9c5f7a12");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->namespace_, "batch");
  EXPECT_EQ(p->pod, "eval-job-x7k2p");
  EXPECT_EQ(p->pod_uid, "e9a07b35-2c4d-4f81-8e6a-0b3d9c5f7a12");
  // A static pod: the UID is the config hash.
  auto s = parse_pod_log_dir("kube-system_kube-apiserver-node1_8a6b1a0f8e0f2b5e0b4b7f9d1c2e3f4a");
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->pod, "kube-apiserver-node1");
  EXPECT_EQ(s->pod_uid, "8a6b1a0f8e0f2b5e0b4b7f9d1c2e3f4a");
}

TEST(KubeletLogs, PodLogDirRejects) {
  EXPECT_FALSE(parse_pod_log_dir(""));
  EXPECT_FALSE(parse_pod_log_dir(".keep"));
  EXPECT_FALSE(parse_pod_log_dir("batch_eval-job-x7k2p"));
  EXPECT_FALSE(parse_pod_log_dir("_eval_e9a07b35-2c4d-4f81-8e6a-0b3d9c5f7a12"));
  EXPECT_FALSE(parse_pod_log_dir("batch__e9a07b35-2c4d-4f81-8e6a-0b3d9c5f7a12"));
  EXPECT_FALSE(parse_pod_log_dir("batch_eval_"));
  EXPECT_FALSE(parse_pod_log_dir("batch_eval_e9a07b35_2c4d"));
  EXPECT_FALSE(parse_pod_log_dir("batch_eval_not-a-uid-at-all"));
  EXPECT_FALSE(parse_pod_log_dir("batch_eval_e9a0"));
  EXPECT_FALSE(parse_pod_log_dir(std::string("\xff\x00_\x01_\x02", 6)));
}

}  // namespace
}  // namespace llmon::procfs
