// The job and instance labels of the agent's own stored history
// (--storage.self.job, --storage.self.instance, hostname injected).
#include <gtest/gtest.h>

#include "app/storage_setup.h"
#include "config/flags.h"

namespace llmon::app {
namespace {

std::vector<model::Label> labels_for(const std::vector<std::string>& args, int port) {
  auto s = config::load(args, {});
  EXPECT_TRUE(s) << s.error();
  if (!s) return {};
  return self_sink_options(*s, port, [] { return std::string("gpu-node-7"); }).target_labels;
}

TEST(SelfTargetLabels, DefaultsToJobLlmonAndHostnamePort) {
  EXPECT_EQ(labels_for({"agent"}, 8747),
            (std::vector<model::Label>{{"instance", "gpu-node-7:8747"}, {"job", "llmon"}}));
}

TEST(SelfTargetLabels, FlagsOverride) {
  EXPECT_EQ(labels_for({"agent", "--storage.self.job=node", "--storage.self.instance=10.0.0.7:9100"}, 8747),
            (std::vector<model::Label>{{"instance", "10.0.0.7:9100"}, {"job", "node"}}));
}

TEST(FlagValues, EveryFlagWithTheResolvedTargetLabels) {
  auto s = config::load({"agent", "--collect.interval=5s"}, {});
  ASSERT_TRUE(s) << s.error();
  auto flags = flag_values(*s, 9100, [] { return std::string("gpu-node-7"); });
  EXPECT_EQ(flags.size(), config::flag_table().size());
  EXPECT_EQ(flags.at("collect.interval"), "5s");
  EXPECT_EQ(flags.at("storage.self.instance"), "gpu-node-7:9100") << "resolved, not the empty flag";
  EXPECT_EQ(flags.at("storage.self.job"), "llmon");
  EXPECT_EQ(flags.at("web.listen-address"), "127.0.0.1:8747");
}

}  // namespace
}  // namespace llmon::app
