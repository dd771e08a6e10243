#include "collector/uname.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>

namespace llmon::collector {
namespace {

Status collect_uname(Collector& c, model::Snapshot& snap) {
  model::SnapshotBuilder b(snap, 1000);
  Status s = c.collect(b);
  b.finish();
  return s;
}

TEST(UnameCollector, LabelsFromTheSource) {
  int calls = 0;
  auto c = make_uname_with([&](UnameInfo& u) {
    ++calls;
    u = {"Linux", "6.1.0-18-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)", "x86_64", "gpu01", "(none)"};
    return Status::ok();
  });
  model::Snapshot s;
  ASSERT_TRUE(collect_uname(*c, s));
  const model::Family* f = s.find("node_uname_info");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->label_names,
            (std::vector<std::string>{"domainname", "machine", "nodename", "release", "sysname", "version"}));
  ASSERT_EQ(f->series.size(), 1u);
  EXPECT_EQ(f->series[0].label_values,
            (std::vector<std::string>{"(none)", "x86_64", "gpu01", "6.1.0-18-amd64", "Linux",
                                      "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)"}));
  EXPECT_EQ(f->series[0].value, 1);
  ASSERT_TRUE(collect_uname(*c, s));
  EXPECT_EQ(calls, 2);  // asked every cycle: the hostname may change
}

TEST(UnameCollector, SourceErrorFailsTheCycle) {
  auto c = make_uname_with([](UnameInfo&) { return Status::error("uname: boom"); });
  model::Snapshot s;
  Status st = collect_uname(*c, s);
  EXPECT_FALSE(st);
  EXPECT_EQ(st.message(), "uname: boom");
  EXPECT_EQ(s.series_count(), 0u);
}

TEST(UnameCollector, SystemCallMatchesUtsname) {
  UnameInfo u;
  ASSERT_TRUE(system_uname(u));
  struct utsname ref {};
  ASSERT_EQ(::uname(&ref), 0);
  EXPECT_EQ(u.sysname, ref.sysname);
  EXPECT_EQ(u.release, ref.release);
  EXPECT_EQ(u.machine, ref.machine);
  EXPECT_EQ(u.nodename, ref.nodename);
  EXPECT_EQ(u.domainname, ref.domainname);
}

}  // namespace
}  // namespace llmon::collector
