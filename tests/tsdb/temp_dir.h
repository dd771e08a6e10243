// A temporary directory for store tests, removed with everything in it at
// the end of the scope.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace llmon::testing {

class TempDir {
 public:
  // prefer_shm: on /dev/shm when that is a writable directory (tmpfs: the
  // store's fdatasync()s cost nothing, which matters for tests that reopen a
  // store hundreds of times), else under ::testing::TempDir().
  explicit TempDir(bool prefer_shm = false) {
    std::vector<std::string> bases;
    if (prefer_shm) bases.push_back("/dev/shm/");
    bases.push_back(::testing::TempDir());
    for (const std::string& base : bases) {
      std::string tmpl = base + "llmon-tsdb-XXXXXX";
      std::vector<char> buf(tmpl.begin(), tmpl.end());
      buf.push_back('\0');
      if (::mkdtemp(buf.data()) != nullptr) {
        path_ = buf.data();
        return;
      }
    }
    ADD_FAILURE() << "cannot create a temporary directory";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

}  // namespace llmon::testing
