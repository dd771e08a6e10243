// parse_kmsg_record on the record shapes the kernel hands out: GPU Xid lines
// of several driver versions, NVSwitch SXid, PCIe AER with its dictionary,
// the OOM killer, continuation fragments, escapes and broken records.
#include "logwatch/kmsg_record.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace llmon::logwatch {
namespace {

using namespace std::string_literals;
using Dict = std::vector<std::pair<std::string, std::string>>;

struct Good {
  const char* name;
  std::string raw;
  int priority;
  int facility;
  uint64_t seq;
  int64_t usec;
  bool continuation;
  std::string text;
  Dict dict;
};

class KmsgRecordGood : public ::testing::TestWithParam<Good> {};

TEST_P(KmsgRecordGood, Parses) {
  const Good& g = GetParam();
  auto rec = parse_kmsg_record(g.raw);
  ASSERT_TRUE(rec) << rec.error();
  EXPECT_EQ(rec->priority, g.priority);
  EXPECT_EQ(rec->facility, g.facility);
  EXPECT_EQ(rec->seq, g.seq);
  EXPECT_EQ(rec->usec, g.usec);
  EXPECT_EQ(rec->continuation, g.continuation);
  EXPECT_EQ(rec->text, g.text);
  EXPECT_EQ(rec->dict, g.dict);
}

const Good kGood[] = {
    {"xid_r535_full",
     "4,1834,1234567890,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.\n",
     4,
     0,
     1834,
     1234567890,
     false,
     "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.",
     {}},
    {"xid_r470_no_domain",
     "4,77,5000,-;NVRM: Xid (PCI:3b:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address",
     4,
     0,
     77,
     5000,
     false,
     "NVRM: Xid (PCI:3b:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): Out Of Range Address",
     {}},
    {"xid_no_pci_prefix_unknown_pid",
     "3,9,42,-;NVRM: Xid (0000:b1:00): 31, pid='<unknown>', name=<unknown>, Ch 00000008, intr 10000000. MMU Fault: "
     "ENGINE GRAPHICS\n",
     3,
     0,
     9,
     42,
     false,
     "NVRM: Xid (0000:b1:00): 31, pid='<unknown>', name=<unknown>, Ch 00000008, intr 10000000. MMU Fault: ENGINE "
     "GRAPHICS",
     {}},
    {"xid_nvlink5_severity",
     "4,2001,99,-;NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 0x00000000 "
     "0x00000000)\n",
     4,
     0,
     2001,
     99,
     false,
     "NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 0x00000000 0x00000000)",
     {}},
    {"fallen_off_bus_no_xid",
     "3,5,6,-;NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n",
     3,
     0,
     5,
     6,
     false,
     "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.",
     {}},
    {"sxid",
     "4,300,7000,-;nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 30 LTSSM Fault Up\n",
     4,
     0,
     300,
     7000,
     false,
     "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 30 LTSSM Fault Up",
     {}},
    {"aer_fatal_with_dict",
     "3,901,12345,-;pcieport 0000:00:01.0: AER: Uncorrectable (Fatal) error message received from 0000:3b:00.0\n"
     " SUBSYSTEM=pci\n DEVICE=+pci:0000:00:01.0\n",
     3,
     0,
     901,
     12345,
     false,
     "pcieport 0000:00:01.0: AER: Uncorrectable (Fatal) error message received from 0000:3b:00.0",
     {{"SUBSYSTEM", "pci"}, {"DEVICE", "+pci:0000:00:01.0"}}},
    {"aer_corrected",
     "4,902,12346,-;pcieport 0000:00:01.0: AER: Corrected error message received from 0000:3b:00.0\n",
     4,
     0,
     902,
     12346,
     false,
     "pcieport 0000:00:01.0: AER: Corrected error message received from 0000:3b:00.0",
     {}},
    {"oom_killer",
     "3,1000,999,-;Out of memory: Killed process 4242 (python3) total-vm:123456kB, anon-rss:65432kB, file-rss:0kB, "
     "shmem-rss:0kB, UID:1000 pgtables:1234kB oom_score_adj:0\n",
     3,
     0,
     1000,
     999,
     false,
     "Out of memory: Killed process 4242 (python3) total-vm:123456kB, anon-rss:65432kB, file-rss:0kB, shmem-rss:0kB, "
     "UID:1000 pgtables:1234kB oom_score_adj:0",
     {}},
    {"continuation_with_dict",
     "6,77,100,c;usb 1-1: new high-speed USB device number 2 using xhci_hcd\n SUBSYSTEM=usb\n DEVICE=c189:1\n",
     6,
     0,
     77,
     100,
     true,
     "usb 1-1: new high-speed USB device number 2 using xhci_hcd",
     {{"SUBSYSTEM", "usb"}, {"DEVICE", "c189:1"}}},
    {"old_kernel_plus_fragment",
     "4,78,101,+; (this is the rest of the line)",
     4,
     0,
     78,
     101,
     true,
     " (this is the rest of the line)",
     {}},
    {"caller_field_ignored",
     "6,339,5140900,-,caller=T1;NET: Registered protocol family 10\n",
     6,
     0,
     339,
     5140900,
     false,
     "NET: Registered protocol family 10",
     {}},
    {"user_facility", "12,44,55,-;llmon-test: hello", 4, 1, 44, 55, false, "llmon-test: hello", {}},
    {"daemon_facility",
     "30,12,34,-;systemd[1]: Started Journal Service.",
     6,
     3,
     12,
     34,
     false,
     "systemd[1]: Started Journal Service.",
     {}},
    {"escapes_decoded",
     "6,5,10,-;tab\\x09here back\\x5cslash e-acute \\xc3\\xa9 nul\\x00end\\x7f",
     6,
     0,
     5,
     10,
     false,
     "tab\there back\\slash e-acute \xc3\xa9 nul\0end\x7f"s,
     {}},
    {"escape_in_dict_value", "6,5,10,-;x\n NOTE=a\\x20b\\x0ac\n", 6, 0, 5, 10, false, "x", {{"NOTE", "a b\nc"}}},
    {"broken_escapes_kept", "6,5,10,-;\\x4 \\xzz \\y end\\", 6, 0, 5, 10, false, "\\x4 \\xzz \\y end\\", {}},
    {"raw_invalid_utf8_kept", "6,5,10,-;bad \xff\xfe bytes", 6, 0, 5, 10, false, "bad \xff\xfe bytes", {}},
    {"empty_text", "6,5,10,-;\n", 6, 0, 5, 10, false, "", {}},
    {"semicolon_in_text", "6,5,10,-;a;b=c", 6, 0, 5, 10, false, "a;b=c", {}},
    {"max_seq", "0,18446744073709551615,0,-;x", 0, 0, UINT64_MAX, 0, false, "x", {}},
};

INSTANTIATE_TEST_SUITE_P(Shapes, KmsgRecordGood, ::testing::ValuesIn(kGood),
                         [](const auto& info) { return std::string(info.param.name); });

struct Bad {
  const char* name;
  std::string raw;
  const char* error_part;  // the message must name what is wrong
};

class KmsgRecordBad : public ::testing::TestWithParam<Bad> {};

TEST_P(KmsgRecordBad, IsAnErrorThatNamesTheField) {
  auto rec = parse_kmsg_record(GetParam().raw);
  ASSERT_FALSE(rec);
  EXPECT_NE(rec.error().find(GetParam().error_part), std::string::npos) << rec.error();
  EXPECT_EQ(rec.error().rfind("kmsg record: ", 0), 0u) << rec.error();
}

const Bad kBad[] = {
    {"empty", "", "empty record"},
    {"only_newline", "\n", "empty record"},
    {"no_semicolon", "6,1,2,- text", "no ';'"},
    {"priority_text", "x,1,2,-;t", "priority \"x\""},
    {"priority_negative", "-1,1,2,-;t", "priority"},
    {"priority_too_big", "99999,1,2,-;t", "out of range"},
    {"no_seq", "6;t", "no sequence number"},
    {"seq_empty", "6,,2,-;t", "seq \"\""},
    {"seq_overflow", "6,18446744073709551616,2,-;t", "seq"},
    {"seq_hex", "6,0x10,2,-;t", "seq \"0x10\""},
    {"no_usec", "6,1;t", "no timestamp"},
    {"usec_negative", "6,1,-2,-;t", "timestamp \"-2\""},
    {"no_flags", "6,1,2;t", "no flags"},
    {"empty_flags", "6,1,2,;t", "no flags"},
    {"empty_flags_before_more", "6,1,2,,caller=T1;t", "empty flags"},
    {"dict_line_without_space", "6,1,2,-;t\nKEY=v\n", "line 2 does not start with a space"},
    {"dict_line_without_equals", "6,1,2,-;t\n SUBSYSTEM=pci\n novalue\n", "dictionary line 3"},
    {"dict_empty_key", "6,1,2,-;t\n =v\n", "is not KEY=value"},
    {"binary_garbage", std::string("\x01\x02\xff\x00zz", 6), "no ';'"},
};

INSTANTIATE_TEST_SUITE_P(Broken, KmsgRecordBad, ::testing::ValuesIn(kBad),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(KmsgEscapes, DecodesEveryByteValue) {
  std::string escaped, expected;
  for (int b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", b);
    escaped += hex;
    expected.push_back(static_cast<char>(b));
  }
  std::string out;
  decode_kmsg_escapes(escaped, out);
  EXPECT_EQ(out, expected);
  out.clear();
  decode_kmsg_escapes("\\X41\\x4G\\xA9", out);  // upper-case X is no escape; A9 hex digits in either case
  EXPECT_EQ(out, "\\X41\\x4G\xa9");
}

}  // namespace
}  // namespace llmon::logwatch
