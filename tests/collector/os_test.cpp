// os collector on the fixture rootfs (Ubuntu 22.04: /etc/os-release links to
// /usr/lib/os-release) and on per-test roots for fallback, caching and errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "collector/builtin.h"
#include "support/test_paths.h"

namespace llmon::collector {
namespace {

namespace fs = std::filesystem;

class RootTree {
 public:
  RootTree() {
    char tmpl[] = "/tmp/llmon-os-test-XXXXXX";
    root_ = ::mkdtemp(tmpl);
  }
  ~RootTree() { fs::remove_all(root_); }
  void file(const std::string& rel, const std::string& content) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << content;
  }
  // Sets the file's mtime (seconds) so a rewrite is seen as a change.
  void touch(const std::string& rel, int64_t sec) {
    struct timespec ts[2] = {{sec, 0}, {sec, 0}};
    ::utimensat(AT_FDCWD, (root_ / rel).c_str(), ts, 0);
  }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
};

std::unique_ptr<Collector> os_at(const std::string& root) {
  CollectorContext ctx;
  ctx.fs.root = root;
  return make_os(ctx);
}

Status collect_os(Collector& c, model::Snapshot& snap) {
  model::SnapshotBuilder b(snap, 1000);
  Status s = c.collect(b);
  b.finish();
  return s;
}

TEST(OsCollector, FixtureUbuntu) {
  auto c = os_at(testing::fixture("rootfs"));
  model::Snapshot s;
  Status st = collect_os(*c, s);
  ASSERT_TRUE(st) << st.message();
  const model::Family* info = s.find("node_os_info");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->label_names,
            (std::vector<std::string>{"build_id", "id", "id_like", "image_id", "image_version", "name", "pretty_name",
                                      "variant", "variant_id", "version", "version_codename", "version_id"}));
  ASSERT_EQ(info->series.size(), 1u);
  EXPECT_EQ(info->series[0].label_values,
            (std::vector<std::string>{"", "ubuntu", "debian", "", "", "Ubuntu", "Ubuntu 22.04.4 LTS", "", "",
                                      "22.04.4 LTS (Jammy Jellyfish)", "jammy", "22.04"}));
  const auto* v = s.find_series("node_os_version", {{"id", "ubuntu"}, {"id_like", "debian"}, {"name", "Ubuntu"}});
  ASSERT_NE(v, nullptr);
  EXPECT_DOUBLE_EQ(v->value, 22.04);
}

TEST(OsCollector, FallsBackToUsrLibAndCachesByMtime) {
  RootTree t;
  t.file("usr/lib/os-release", "NAME=\"Debian GNU/Linux\"\nID=debian\nVERSION_ID=\"12\"\n");
  t.touch("usr/lib/os-release", 1000);
  auto c = os_at(t.path());
  model::Snapshot s;
  ASSERT_TRUE(collect_os(*c, s));
  ASSERT_NE(s.find_series("node_os_version", {{"id", "debian"}}), nullptr);
  EXPECT_EQ(s.find_series("node_os_version", {{"id", "debian"}})->value, 12);

  // Same size and mtime: the cached parse is kept (node_exporter caches by mtime too).
  t.file("usr/lib/os-release", "NAME=\"Debian GNU/Linux\"\nID=debiaN\nVERSION_ID=\"12\"\n");
  t.touch("usr/lib/os-release", 1000);
  ASSERT_TRUE(collect_os(*c, s));
  EXPECT_NE(s.find_series("node_os_version", {{"id", "debian"}}), nullptr);

  // A new mtime: parsed again.
  t.touch("usr/lib/os-release", 2000);
  ASSERT_TRUE(collect_os(*c, s));
  EXPECT_NE(s.find_series("node_os_version", {{"id", "debiaN"}}), nullptr);

  // /etc/os-release appears and takes precedence.
  t.file("etc/os-release", "NAME=Other\nID=other\nVERSION_ID=rolling\n");
  ASSERT_TRUE(collect_os(*c, s));
  EXPECT_NE(s.find_series("node_os_info", {{"id", "other"}, {"version_id", "rolling"}}), nullptr);
  EXPECT_EQ(s.find("node_os_version"), nullptr);  // no numeric VERSION_ID: no version series
}

TEST(OsCollector, MissingOrMalformed) {
  RootTree t;
  auto c = os_at(t.path());
  model::Snapshot s;
  Status st = collect_os(*c, s);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("no os-release"), std::string::npos);

  t.file("etc/os-release", "NAME=\"Ubuntu\nID=ubuntu\n");
  st = collect_os(*c, s);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("os-release:1: unmatched \""), std::string::npos);
  EXPECT_EQ(s.series_count(), 0u);
  st = collect_os(*c, s);  // still failing: nothing half-parsed is cached
  EXPECT_FALSE(st);
  EXPECT_EQ(s.series_count(), 0u);

  t.file("etc/os-release", "");  // empty file: all labels empty, like node_exporter
  t.touch("etc/os-release", 5000);
  ASSERT_TRUE(collect_os(*c, s));
  EXPECT_NE(s.find_series("node_os_info", {{"id", ""}, {"name", ""}}), nullptr);
}

}  // namespace
}  // namespace llmon::collector
