#include "procfs/passwd.h"

#include <gtest/gtest.h>

#include <string>

namespace llmon::procfs {
namespace {

TEST(Passwd, Parses) {
  auto users = parse_passwd(
      "root:x:0:0:root:/root:/bin/bash\n"
      "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
      "alice:x:1000:1000:Alice Liddell,,,:/users/alice:/bin/bash\n"
      "bob:x:1001:1001::/users/bob:/bin/sh");  // no final newline
  EXPECT_EQ(users.size(), 5u);
  EXPECT_EQ(users.at(0), "root");
  EXPECT_EQ(users.at(1), "daemon");
  EXPECT_EQ(users.at(65534), "nobody");
  EXPECT_EQ(users.at(1000), "alice");
  EXPECT_EQ(users.at(1001), "bob");
  EXPECT_EQ(users.count(2000), 0u);
}

TEST(Passwd, FirstEntryForAUidWins) {
  auto users = parse_passwd("toor:x:0:0::/root:/bin/sh\nroot:x:0:0::/root:/bin/bash\n");
  EXPECT_EQ(users.at(0), "toor");
}

TEST(Passwd, SkipsWhatIsNotAnEntry) {
  auto users = parse_passwd(
      "# comment\n"
      "\n"
      "+@netgroup::::::\n"
      "-baduser::::::\n"
      "bad:x:notanumber:0::/:/bin/sh\n"
      "big:x:4294967296:0::/:/bin/sh\n"
      ":x:7:7::/:/bin/sh\n"
      "short:x:8\n"
      "crlf:x:9:9::/:/bin/sh\r\n"
      "carol:x:1002:1002::/users/carol:/bin/bash\n");
  EXPECT_EQ(users.size(), 2u);
  EXPECT_EQ(users.at(1002), "carol");
  EXPECT_EQ(users.at(9), "crlf");
}

TEST(Passwd, GarbageAndBinary) {
  EXPECT_TRUE(parse_passwd("").empty());
  EXPECT_TRUE(parse_passwd(":::::::\n::\n").empty());
  EXPECT_TRUE(parse_passwd(std::string("\x00\xff:\x01:\x02", 6)).empty());
  std::string line = "alice:x:1000:1000::/users/alice:/bin/bash\n";
  for (size_t n = 0; n < line.size(); ++n) {
    auto users = parse_passwd(std::string_view(line).substr(0, n));
    // The uid is known once the third ':' closing it is there.
    EXPECT_EQ(users.count(1000), n > line.find(":1000:") + 5 ? 1u : 0u) << n;
  }
}

}  // namespace
}  // namespace llmon::procfs
