#include "procfs/mountstats.h"

#include <gtest/gtest.h>

#include <string>

namespace llmon::procfs {
namespace {

constexpr char kEvents[] = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27";

// An NFSv3 mount over tcp (stat version 1.1), a non-NFS mount and an NFSv4.2
// mount with newer kernels' ninth per-operation number (errors).
std::string sample() {
  return std::string(
             "device rootfs mounted on / with fstype rootfs\n"
             "device filer01:/vol/scratch mounted on /scratch with fstype nfs statvers=1.1\n"
             "\topts:\trw,vers=3,rsize=1048576,wsize=1048576,hard,proto=tcp,timeo=600,retrans=2,sec=sys\n"
             "\tage:\t1209600\n"
             "\tcaps:\tcaps=0x3fc7,wtmult=4096,dtsize=1048576,bsize=0,namlen=255\n"
             "\tsec:\tflavor=1,pseudoflavor=1\n"
             "\tevents:\t") +
         kEvents +
         "\n"
         "\tbytes:\t1043928117 5238871203 0 16777216 1044111360 5255716864 254881 1282926\n"
         "\tRPC iostats version: 1.1  p/v: 100003/3 (nfs)\n"
         "\txprt:\ttcp 941 1 2 0 3 1843205 1843198 0 29321478 0 65 1283442 3912345\n"
         "\tper-op statistics\n"
         "\t        NULL: 1 1 0 44 24 0 0 0\n"
         "\t     GETATTR: 510148 510149 1 76522200 114273152 16708 651776 282107\n"
         "\n"
         "device sysfs mounted on /sys with fstype sysfs\n"
         "device nfs.example.com:/export/home mounted on /home with fstype nfs4 statvers=1.1\n"
         "\topts:\trw,vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp\n"
         "\tage:\t2592314\n"
         "\tnfsv4:\tbm0=0xfdffbfff,bm1=0x40f9be3e,bm2=0x68800,acl=0x3,sessions,pnfs=not configured\n"
         "\tevents:\t" +
         kEvents +
         "\n"
         "\tbytes:\t48213874112 9127733420 0 0 48219431936 9127860224 11771956 2228549\n"
         "\txprt:\ttcp 760 0 1 0 12 7241802 7241760 0 31811292441 0 128 4186344 14227903\n"
         "\tper-op statistics\n"
         "\t        READ: 665710 665713 0 173750310 235661340 18334 1870591 1826584 12\n"
         "\tTEST_STATEID: 0 0 0 0 0 0 0 0 0\n"
         "\n";
}

TEST(Mountstats, ParsesNfsV3AndV4) {
  auto r = parse_mountstats(sample(), "mountstats");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].device, "rootfs");
  EXPECT_EQ((*r)[0].mount_point, "/");
  EXPECT_EQ((*r)[0].fs_type, "rootfs");
  EXPECT_FALSE((*r)[0].nfs);
  EXPECT_FALSE((*r)[2].nfs);

  const MountStatsEntry& v3 = (*r)[1];
  EXPECT_EQ(v3.device, "filer01:/vol/scratch");
  EXPECT_EQ(v3.mount_point, "/scratch");
  ASSERT_TRUE(v3.nfs);
  EXPECT_EQ(v3.nfs->stat_version, "1.1");
  EXPECT_EQ(v3.nfs->age_seconds, 1209600);
  EXPECT_EQ(v3.nfs->bytes[kNfsReadBytes], 1043928117u);
  EXPECT_EQ(v3.nfs->bytes[kNfsDirectWriteBytes], 16777216u);
  EXPECT_EQ(v3.nfs->bytes[kNfsWritePages], 1282926u);
  EXPECT_EQ(v3.nfs->events[0], 1u);
  EXPECT_EQ(v3.nfs->events[26], 27u);
  const NfsTransportStats& t = v3.nfs->transport;
  EXPECT_EQ(t.protocol, "tcp");
  EXPECT_EQ(t.port, 941u);
  EXPECT_EQ(t.bind, 1u);
  EXPECT_EQ(t.connect, 2u);
  EXPECT_EQ(t.idle_time_seconds, 3u);
  EXPECT_EQ(t.sends, 1843205u);
  EXPECT_EQ(t.receives, 1843198u);
  EXPECT_EQ(t.cumulative_active_requests, 29321478u);
  EXPECT_EQ(t.max_slots, 65u);
  EXPECT_EQ(t.cumulative_sending_queue, 1283442u);
  EXPECT_EQ(t.cumulative_pending_queue, 3912345u);
  ASSERT_EQ(v3.nfs->operations.size(), 2u);
  const NfsOperationStats& getattr = v3.nfs->operations[1];
  EXPECT_EQ(getattr.name, "GETATTR");
  EXPECT_EQ(getattr.requests, 510148u);
  EXPECT_EQ(getattr.transmissions, 510149u);
  EXPECT_EQ(getattr.major_timeouts, 1u);
  EXPECT_EQ(getattr.bytes_sent, 76522200u);
  EXPECT_EQ(getattr.bytes_received, 114273152u);
  EXPECT_EQ(getattr.queue_ms, 16708u);
  EXPECT_EQ(getattr.response_ms, 651776u);
  EXPECT_EQ(getattr.request_ms, 282107u);
  EXPECT_EQ(getattr.errors, 0u);

  const MountStatsEntry& v4 = (*r)[3];
  ASSERT_TRUE(v4.nfs);
  EXPECT_EQ(v4.fs_type, "nfs4");
  EXPECT_EQ(v4.nfs->transport.port, 760u);
  ASSERT_EQ(v4.nfs->operations.size(), 2u);
  EXPECT_EQ(v4.nfs->operations[0].errors, 12u);
  EXPECT_EQ(v4.nfs->operations[1].name, "TEST_STATEID");
}

TEST(Mountstats, UdpAndStatVersion10) {
  // udp has no connect count, connect time or idle time; 1.0 lacks the last three.
  auto r = parse_mountstats(
      "device a:/x mounted on /x with fstype nfs statvers=1.0\n"
      "\tage:\t1.5\n"
      "\txprt:\tudp 832 1 2 3 4 5 6\n"
      "\tper-op statistics\n"
      "\t        NULL: 1 2 3 4 5 6 7 8\n"
      "\n"
      "device b:/y mounted on /y with fstype nfs statvers=1.0\n"
      "\txprt:\ttcp 1 2 3 4 5 6 7 8 9 10\n"
      "\tper-op statistics\n"
      "\n"
      "device d:/w mounted on /w with fstype nfs statvers=1.1\n"
      "\txprt:\tudp 1 2 3 4 5 6 7 8 9 10\n",
      "f");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r->size(), 3u);
  const NfsTransportStats& u10 = (*r)[0].nfs->transport;
  EXPECT_EQ((*r)[0].nfs->age_seconds, 1.5);
  EXPECT_EQ(u10.protocol, "udp");
  EXPECT_EQ(u10.port, 832u);
  EXPECT_EQ(u10.bind, 1u);
  EXPECT_EQ(u10.connect, 0u);
  EXPECT_EQ(u10.idle_time_seconds, 0u);
  EXPECT_EQ(u10.sends, 2u);
  EXPECT_EQ(u10.receives, 3u);
  EXPECT_EQ(u10.bad_transaction_ids, 4u);
  EXPECT_EQ(u10.cumulative_backlog, 6u);
  const NfsTransportStats& t10 = (*r)[1].nfs->transport;
  EXPECT_EQ(t10.idle_time_seconds, 5u);
  EXPECT_EQ(t10.cumulative_backlog, 10u);
  EXPECT_EQ(t10.max_slots, 0u);
  EXPECT_TRUE((*r)[1].nfs->operations.empty());
  const NfsTransportStats& u11 = (*r)[2].nfs->transport;
  EXPECT_EQ(u11.sends, 3u);
  EXPECT_EQ(u11.cumulative_backlog, 7u);
  EXPECT_EQ(u11.max_slots, 8u);
  EXPECT_EQ(u11.cumulative_sending_queue, 9u);
  EXPECT_EQ(u11.cumulative_pending_queue, 10u);
}

TEST(Mountstats, AgeAsGoDurations) {
  auto age = [](const std::string& a) {
    auto r = parse_mountstats("device a:/x mounted on /x with fstype nfs statvers=1.1\n\tage:\t" + a + "\n", "f");
    return r ? (*r)[0].nfs->age_seconds : -1.0;
  };
  EXPECT_EQ(age("0"), 0);
  EXPECT_EQ(age("+7"), 7);
  EXPECT_EQ(age("-2"), -2);
  EXPECT_EQ(age(".25"), 0.25);
  EXPECT_EQ(age("5."), 5);
  EXPECT_EQ(age("x"), -1.0);
  EXPECT_EQ(age("9300000000"), -1.0);  // past Go's 292 years of nanoseconds
}

TEST(Mountstats, MalformedInputNamesFileAndLine) {
  const std::string head = "device a:/x mounted on /x with fstype nfs statvers=1.1\n";
  struct Case {
    std::string text;
    int line;
  } cases[] = {
      {"device a:/x mounted on\n", 1},
      {"device a:/x mounted at /x with fstype nfs\n", 1},
      {"device /dev/sda1 mounted on / with fstype ext4 statvers=1.1\n", 1},
      {head + "\tage:\n", 2},
      {head + "\tage:\tsoon\n", 2},
      {head + "\tbytes:\t1 2 3\n", 2},
      {head + "\tbytes:\t1 2 3 4 5 6 7 x\n", 2},
      {head + "\tevents:\t1 2\n", 2},
      {head + "\txprt:\ttcp\n", 2},
      {head + "\txprt:\tsctp 1 2 3 4 5 6 7 8 9 10 11 12 13\n", 2},
      {head + "\txprt:\ttcp 1 2 3 4 5 6 7 8 9 10\n", 2},  // 1.1 has 13
      {"device a:/x mounted on /x with fstype nfs statvers=1.2\n\txprt:\ttcp 1 2 3 4 5 6 7 8 9 10\n", 2},
      {head + "\tper-op statistics\n\t        NULL: 1 2 3\n", 3},
      {head + "\tper-op statistics\n\t        NULL: 1 2 3 4 5 6 7 -8\n", 3},
      // Without the blank line, the next device line is read as an operation.
      {head + "\tper-op statistics\ndevice proc mounted on /proc with fstype proc\n", 3},
  };
  for (const auto& c : cases) {
    auto r = parse_mountstats(c.text, "/proc/self/mountstats");
    ASSERT_FALSE(r) << c.text;
    EXPECT_NE(r.error().find("/proc/self/mountstats:" + std::to_string(c.line) + ": "), std::string::npos)
        << c.text << " -> " << r.error();
  }
}

}  // namespace
}  // namespace llmon::procfs
