#include "remote/remote_config.h"

#include <gtest/gtest.h>

namespace llmon::remote {
namespace {

TEST(RemoteConfig, ParsesPrometheusFormat) {
  auto f = parse_remote_write_config(R"(
global:
  external_labels: {cluster: a, node: gpu01}
remote_write:
  - url: http://127.0.0.1:9090/api/v1/write
    name: central
    remote_timeout: 10s
    headers: {X-Scope-OrgID: team1}
    basic_auth: {username: u, password: p}
    tls_config: {insecure_skip_verify: true}
    write_relabel_configs:
      - source_labels: [__name__]
        regex: "go_.*"
        action: drop
    queue_config:
      capacity: 5000
      max_shards: 4
      min_shards: 1
      max_samples_per_send: 100
      batch_send_deadline: 2s
      min_backoff: 100ms
      max_backoff: 10s
  - url: https://vm:8428/api/v1/write
    authorization: {credentials: tok}
)",
                                     "rw.yml");
  ASSERT_TRUE(f) << f.error();
  ASSERT_EQ(f->remote_write.size(), 2u);
  ASSERT_EQ(f->external_labels.size(), 2u);
  const auto& c = f->remote_write[0];
  EXPECT_EQ(c.name, "central");
  EXPECT_EQ(c.remote_timeout_ms, 10000);
  ASSERT_EQ(c.headers.size(), 1u);
  EXPECT_EQ(c.headers[0].first, "X-Scope-OrgID");
  ASSERT_TRUE(c.basic_auth);
  EXPECT_EQ(c.basic_auth->password, "p");
  EXPECT_TRUE(c.tls.insecure_skip_verify);
  ASSERT_EQ(c.write_relabel_configs.size(), 1u);
  EXPECT_EQ(c.write_relabel_configs[0].action, scrape::RelabelAction::kDrop);
  EXPECT_EQ(c.queue.capacity, 5000u);
  EXPECT_EQ(c.queue.max_samples_per_send, 100u);
  EXPECT_EQ(c.queue.batch_send_deadline_ms, 2000);
  EXPECT_EQ(c.queue.min_backoff_ms, 100);
  EXPECT_EQ(c.queue.max_backoff_ms, 10000);
  EXPECT_EQ(c.origin, "rw.yml:5");
  const auto& d = f->remote_write[1];
  ASSERT_TRUE(d.authorization);
  EXPECT_EQ(d.authorization->type, "Bearer");
  EXPECT_EQ(d.queue.max_samples_per_send, 2000u);  // Prometheus's defaults
  EXPECT_EQ(d.queue.min_backoff_ms, 30);
  EXPECT_EQ(d.queue.max_backoff_ms, 5000);
  EXPECT_NE(queue_hash(c), queue_hash(d));
  EXPECT_EQ(queue_hash(c).size(), 16u);
}

TEST(RemoteConfig, RefusesUnknownKeysWithFileAndLine) {
  auto f =
      parse_remote_write_config("remote_write:\n  - url: http://a/\n    queue_config:\n      shards: 3\n", "rw.yml");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error(), "rw.yml:4:7: queue_config: unknown field \"shards\"");
  f = parse_remote_write_config("remote_write:\n  - url: http://a/\n    urls: x\n", "rw.yml");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error(), "rw.yml:3:5: remote_write: unknown field \"urls\"");
  f = parse_remote_write_config("remote_write:\n  - url: http://a/\n    sigv4: {}\n", "rw.yml");
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().find("rw.yml:3:5: remote_write: \"sigv4\" is not supported"), std::string::npos) << f.error();
  f = parse_remote_write_config("scrape_configs: []\n", "rw.yml");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error(), "rw.yml:1:1: top level: unknown field \"scrape_configs\"");
}

TEST(RemoteConfig, RefusesBadValues) {
  for (const char* bad : {
           "remote_write:\n  - name: x\n",         // no url
           "remote_write:\n  - url: 'ftp://a'\n",  // scheme
           "remote_write:\n  - url: http://a/\n    queue_config: {max_samples_per_send: 0}\n",
           "remote_write:\n  - url: http://a/\n    queue_config: {min_backoff: 10s, max_backoff: 1s}\n",
           "remote_write:\n  - url: http://a/\n    queue_config: {min_backoff: soon}\n",
           "remote_write:\n  - url: http://a/\n    headers: {Content-Encoding: gzip}\n",
           "remote_write:\n  - url: http://a/\n    basic_auth: {username: u}\n    authorization: {credentials: t}\n",
           "remote_write:\n  - url: http://a/\n    write_relabel_configs: [{action: hashmod, target_label: x}]\n",
           "remote_write:\n  - url: http://a/\n  - url: http://a/\n",  // duplicate
           "remote_write: [\n",
           "remote_write:\n  - url: http://a/\n    protobuf_message: prometheus.WriteRequestV3\n",
           "remote_write:\n  - url: http://a/\n    metadata_config: {send_interval: 0s}\n",
           "remote_write:\n  - url: http://a/\n    metadata_config: {max_samples_per_send: 0}\n",
           "remote_write:\n  - url: http://a/\n    metadata_config: {sends: true}\n",
           "remote_write:\n  - url: http://a/\n    queue_config: {max_shards: 0}\n",
           "remote_write:\n  - url: http://a/\n    queue_config: {min_shards: 5, max_shards: 2}\n",
       }) {
    auto f = parse_remote_write_config(bad, "rw.yml");
    EXPECT_FALSE(f) << bad;
    if (!f) {
      EXPECT_EQ(f.error().rfind("rw.yml:", 0), 0u) << f.error();
    }
  }
}

TEST(RemoteConfig, ProtobufMessageAndMetadataConfig) {
  auto f = parse_remote_write_config(R"(
remote_write:
  - url: http://a/
    protobuf_message: io.prometheus.write.v2.Request
    metadata_config: {send: false, send_interval: 30s, max_samples_per_send: 100}
    queue_config: {catch_up_factor: 0}
  - url: http://b/
    protobuf_message: prometheus.WriteRequest
  - url: http://c/
)",
                                     "rw.yml");
  ASSERT_TRUE(f) << f.error();
  ASSERT_EQ(f->remote_write.size(), 3u);
  EXPECT_EQ(f->remote_write[0].protocol, Protocol::kV2);
  EXPECT_FALSE(f->remote_write[0].metadata.send);
  EXPECT_EQ(f->remote_write[0].metadata.send_interval_ms, 30000);
  EXPECT_EQ(f->remote_write[0].metadata.max_samples_per_send, 100u);
  EXPECT_EQ(f->remote_write[0].queue.catch_up_factor, 0u);
  EXPECT_EQ(f->remote_write[1].protocol, Protocol::kV1);
  // Prometheus's defaults.
  const auto& c = f->remote_write[2];
  EXPECT_EQ(c.protocol, Protocol::kV1);
  EXPECT_TRUE(c.metadata.send);
  EXPECT_EQ(c.metadata.send_interval_ms, 60000);
  EXPECT_EQ(c.metadata.max_samples_per_send, 500u);
  EXPECT_EQ(c.queue.catch_up_factor, 20u);
  EXPECT_EQ(c.queue.max_shards, 50u);
  EXPECT_EQ(c.queue.min_shards, 1u);
}

TEST(RemoteConfig, EmptyFileHasNoQueues) {
  auto f = parse_remote_write_config("", "rw.yml");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->remote_write.empty());
}

}  // namespace
}  // namespace llmon::remote
