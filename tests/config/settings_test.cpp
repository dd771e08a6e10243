#include "config/settings.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "config/flags.h"

namespace llmon::config {
namespace {

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/llmon_cfg_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(Flags, EnvName) {
  EXPECT_EQ(env_name("web.listen-address"), "LLMON_WEB_LISTEN_ADDRESS");
  EXPECT_EQ(env_name("collector.cpu"), "LLMON_COLLECTOR_CPU");
}

TEST(Flags, Durations) {
  EXPECT_EQ(*parse_duration_ms("1s"), 1000);
  EXPECT_EQ(*parse_duration_ms("250ms"), 250);
  EXPECT_EQ(*parse_duration_ms("1h30m"), 5'400'000);
  EXPECT_EQ(*parse_duration_ms("0"), 0);
  EXPECT_FALSE(parse_duration_ms("").has_value());
  EXPECT_FALSE(parse_duration_ms("5").has_value());
  EXPECT_FALSE(parse_duration_ms("1x").has_value());
  EXPECT_FALSE(parse_duration_ms("s").has_value());
  // Found by fuzzing: signed overflow on huge values.
  EXPECT_FALSE(parse_duration_ms("9223372036854775807y").has_value());
  EXPECT_FALSE(parse_duration_ms("99999999999999999999s").has_value());
  // Each part fits in int64 milliseconds, their sum does not.
  EXPECT_FALSE(parse_duration_ms("9000000000000000000ms9000000000000000000ms").has_value());
}

TEST(Flags, EveryCollectorHasASwitch) {
  EXPECT_NE(find_flag("collector.loadavg"), nullptr);
  for (const auto& f : flag_table()) {
    EXPECT_FALSE(f.help.empty()) << f.name;
    EXPECT_EQ(f.name.find(' '), std::string::npos);
  }
}

TEST(Settings, DefaultsThenFileThenEnvThenFlags) {
  std::string cfg = write_temp("web:\n  listen-address: 127.0.0.1:1111\n  telemetry-path: /m\nlog.level: debug\n");
  auto s = load({"agent", "--config.file=" + cfg, "--web.telemetry-path", "/x"},
                {"LLMON_LOG_LEVEL=warn", "LLMON_UNRELATED=1"});
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->command, "agent");
  EXPECT_EQ(s->get(flag::kWebListenAddress), "127.0.0.1:1111");
  EXPECT_EQ(s->origin_of(flag::kWebListenAddress), cfg + ":2");
  EXPECT_EQ(s->get(flag::kLogLevel), "warn");
  EXPECT_EQ(s->origin_of(flag::kLogLevel), "env LLMON_LOG_LEVEL");
  EXPECT_EQ(s->get(flag::kWebTelemetryPath), "/x");
  EXPECT_EQ(s->get(flag::kPathProcfs), "/proc");
  EXPECT_EQ(s->get(flag::kCollectInterval), 1000);
  std::remove(cfg.c_str());
}

TEST(Settings, BoolNegationAndPositional) {
  auto s = load({"snapshot", "--no-collector.loadavg", "--json", "extra"}, {});
  ASSERT_TRUE(s) << s.error();
  EXPECT_FALSE(s->get(*collector_switch("loadavg")));
  EXPECT_TRUE(s->get(flag::kJson));
  ASSERT_EQ(s->positional.size(), 1u);
  EXPECT_EQ(s->positional[0], "extra");
}

TEST(Settings, ErrorsNameTheSource) {
  auto bad_flag = load({"agent", "--no-such-flag"}, {});
  ASSERT_FALSE(bad_flag);
  EXPECT_NE(bad_flag.error().find("--no-such-flag"), std::string::npos);

  auto bad_dur = load({"agent", "--collect.interval=abc"}, {});
  ASSERT_FALSE(bad_dur);
  EXPECT_NE(bad_dur.error().find("command line: --collect.interval"), std::string::npos) << bad_dur.error();

  auto bad_env = load({"agent"}, {"LLMON_COLLECTOR_LOADAVG=maybe"});
  ASSERT_FALSE(bad_env);
  EXPECT_NE(bad_env.error().find("LLMON_COLLECTOR_LOADAVG"), std::string::npos) << bad_env.error();

  auto missing = load({"agent", "--web.listen-address"}, {});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("needs a value"), std::string::npos);

  std::string cfg = write_temp("web:\n  listen-address: [1, 2]\n");
  auto list = load({"agent", "--config.file", cfg}, {});
  ASSERT_FALSE(list);
  EXPECT_NE(list.error().find(cfg + ":2"), std::string::npos) << list.error();
  std::remove(cfg.c_str());

  std::string cfg2 = write_temp("nope: 1\n");
  auto unknown = load({"agent", "--config.file", cfg2}, {});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find(cfg2 + ":1: unknown setting \"nope\""), std::string::npos) << unknown.error();
  std::remove(cfg2.c_str());

  auto regex = load({"agent", "--collector.diskstats.device-exclude=(("}, {});
  ASSERT_FALSE(regex);
  EXPECT_NE(regex.error().find("invalid regexp"), std::string::npos);

  auto nofile = load({"agent", "--config.file=/nonexistent/llmon.yml"}, {});
  ASSERT_FALSE(nofile);
  EXPECT_NE(nofile.error().find("/nonexistent/llmon.yml"), std::string::npos);
}

TEST(Settings, RepeatableFlagsJoinTheirValuesAndTakeAYamlList) {
  auto s = load({"agent", "--logwatch.path=/var/log/a.log", "--logwatch.path", "/data/*/train.log",
                 "--web.telemetry-path=/a", "--web.telemetry-path=/b"},
                {});
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->get(flag::kLogwatchPath), "/var/log/a.log,/data/*/train.log");
  EXPECT_EQ(s->get(flag::kWebTelemetryPath), "/b") << "not repeatable: the last one wins";
  std::string cfg = write_temp("logwatch:\n  path:\n    - /var/log/a.log\n    - /var/log/b.log\n");
  auto f = load({"agent", "--config.file=" + cfg}, {});
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->get(flag::kLogwatchPath), "/var/log/a.log,/var/log/b.log");
  std::remove(cfg.c_str());
  std::string bad = write_temp("web:\n  listen-address:\n    - a\n");
  auto b = load({"agent", "--config.file=" + bad}, {});
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().find(bad + ":3: \"web.listen-address\" must be a single value"), std::string::npos) << b.error();
  std::remove(bad.c_str());
}

TEST(ConfigYaml, SyntaxErrorHasLineAndColumn) {
  auto r = parse_config_yaml("a: 1\nb: [unclosed\n", "f.yml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().rfind("f.yml:", 0), 0u) << r.error();
  auto empty = parse_config_yaml("", "f.yml");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
  auto scalar = parse_config_yaml("just a string", "f.yml");
  EXPECT_FALSE(scalar);
}

}  // namespace
}  // namespace llmon::config
