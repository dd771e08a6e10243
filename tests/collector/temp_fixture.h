// TempFixture: a private, writable copy of parts of tests/fixtures/{proc,sys}
// for collector tests that change files between cycles. Files are rewritten in
// place (same inode) because collectors keep descriptors open (CachedFile).
// Removed with the object. One test at a time per instance.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "collector_test_util.h"

namespace llmon::testing {

class TempFixture {
 public:
  // Copies the given fixture paths (files or directories, relative to
  // tests/fixtures); proc/ and sys/ always exist, possibly empty.
  explicit TempFixture(std::initializer_list<const char*> rels = {"proc/stat", "proc/meminfo", "proc/vmstat",
                                                                  "proc/pressure", "sys/devices/system/cpu"}) {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / "llmon-fixture-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = tmpl;
    fs::create_directories(root_ / "proc");
    fs::create_directories(root_ / "sys");
    for (const char* rel : rels) {
      fs::create_directories((root_ / rel).parent_path());
      fs::copy(fixture(rel), root_ / rel, fs::copy_options::recursive);
    }
  }
  ~TempFixture() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempFixture(const TempFixture&) = delete;
  TempFixture& operator=(const TempFixture&) = delete;

  // The fixture context (every flag at its default) re-rooted here.
  collector::CollectorContext context() const {
    auto ctx = fixture_context();
    ctx.fs.proc_root = (root_ / "proc").string();
    ctx.fs.sys_root = (root_ / "sys").string();
    return ctx;
  }
  std::string path(const std::string& rel) const { return (root_ / rel).string(); }
  // Truncates and rewrites rel ("proc/stat"), creating directories as needed.
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::create_directories(std::filesystem::path(path(rel)).parent_path());
    std::ofstream(path(rel)) << text;  // O_TRUNC keeps the inode
  }
  void remove(const std::string& rel) const { std::filesystem::remove_all(path(rel)); }

 private:
  std::filesystem::path root_;
};

}  // namespace llmon::testing
