#include "procfs/os_release.h"

#include <gtest/gtest.h>

namespace llmon::procfs {
namespace {

constexpr std::string_view kUbuntu = R"OS(PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
UBUNTU_CODENAME=jammy
)OS";

TEST(OsRelease, ParsesUbuntu) {
  auto r = parse_os_release(kUbuntu);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->name, "Ubuntu");
  EXPECT_EQ(r->pretty_name, "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(r->version_id, "22.04");
  EXPECT_EQ(r->version, "22.04.4 LTS (Jammy Jellyfish)");
  EXPECT_EQ(r->version_codename, "jammy");
  EXPECT_EQ(r->id, "ubuntu");
  EXPECT_EQ(r->id_like, "debian");
  EXPECT_EQ(r->build_id, "");
  EXPECT_EQ(r->variant, "");
}

TEST(OsRelease, QuotingEscapesAndComments) {
  auto r = parse_os_release(
      "# a comment\n"
      "   # indented comment\n"
      "\n"
      "   \n"
      "NAME='Ubu\"ntu' # trailing comment\n"
      "ID=ubu\\ntu\n"  // backslash is literal outside double quotes
      "export VERSION=\"1 \\\"x\\\" \\\\ \\t\"\n"
      "VARIANT = server edition   # comment\n"
      "VARIANT_ID=#all comment\n"
      "BUILD_ID=a'b c'd\n"
      "IMAGE_ID=\"caf\xc3\xa9\"\r\n"
      "UNKNOWN_KEY=ignored\n");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->name, "Ubu\"ntu");
  EXPECT_EQ(r->id, "ubu\\ntu");
  EXPECT_EQ(r->version, "1 \"x\" \\ \t");
  EXPECT_EQ(r->variant, "server edition");
  EXPECT_EQ(r->variant_id, "");
  EXPECT_EQ(r->build_id, "ab cd");
  EXPECT_EQ(r->image_id, "caf\xc3\xa9");
}

TEST(OsRelease, LastAssignmentWins) {
  auto r = parse_os_release("ID=a\nID=b\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, "b");
}

TEST(OsRelease, MalformedLinesNameTheLine) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"NAME=x\ngarbage\n", "/etc/os-release:2: missing ="},
      {"NAME=\"Ubuntu\n", "/etc/os-release:1: unmatched \""},
      {"NAME='Ubuntu\n", "/etc/os-release:1: unmatched '"},
      {"NAME=\"a\\\"\n", "/etc/os-release:1: unmatched \""},
      {"NAME=\"a\\x\"\n", "/etc/os-release:1: invalid escape sequence: x"},
      {"NAME=\"a\\", "/etc/os-release:1: incomplete escape sequence"},
      {"9X=1\n", "/etc/os-release:1: key must start with [A-Za-z_] but found '9'"},
      {"=1\n", "/etc/os-release:1: empty key"},
      {"NAME=a\tb\n", "/etc/os-release:1: 0x09 is an invalid value character"},
  };
  for (const auto& c : cases) {
    auto r = parse_os_release(c.text, "/etc/os-release");
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error(), c.message);
  }
}

TEST(OsRelease, EmptyAndTruncated) {
  auto r = parse_os_release("");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "");
  r = parse_os_release("NAME=Deb");  // no final newline
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "Deb");
  r = parse_os_release("NAME=\"Deb");  // cut inside a quote
  EXPECT_FALSE(r);
}

TEST(OsRelease, InvalidUtf8IsReplaced) {
  auto r = parse_os_release(
      "NAME=a\xff\xfe"
      "b\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name,
            "a\xef\xbf\xbd"
            "b");
}

TEST(OsVersion, MajorMinor) {
  EXPECT_DOUBLE_EQ(os_version_number("22.04"), 22.04);
  EXPECT_DOUBLE_EQ(os_version_number("12"), 12);
  EXPECT_DOUBLE_EQ(os_version_number("7.9.2009"), 7.9);
  EXPECT_DOUBLE_EQ(os_version_number("12."), 12);
  EXPECT_DOUBLE_EQ(os_version_number("0"), 0);
  EXPECT_DOUBLE_EQ(os_version_number(""), 0);
  EXPECT_DOUBLE_EQ(os_version_number("rolling"), 0);
  EXPECT_DOUBLE_EQ(os_version_number(".5"), 0);
}

}  // namespace
}  // namespace llmon::procfs
