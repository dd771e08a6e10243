// Test helpers of the kmsg tests: a temporary directory removed at the end,
// and appending bytes to a file the way a writer process does (O_APPEND,
// one write per call).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace llmon::logwatch {

class KmsgTestDir {
 public:
  KmsgTestDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "llmon-kmsg-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~KmsgTestDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  KmsgTestDir(const KmsgTestDir&) = delete;
  KmsgTestDir& operator=(const KmsgTestDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Appends data with one write(2) (the file is created when missing).
inline void kmsg_append(const std::string& path, std::string_view data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ::close(fd);
}

}  // namespace llmon::logwatch
