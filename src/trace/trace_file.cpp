// trace_file.h: plain reads for JSON, zlib's gzread for gzip (gzip magic).
#include "trace/trace_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace llmon::trace {
namespace {

class PlainSource : public ByteSource {
 public:
  PlainSource(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PlainSource() override { ::close(fd_); }
  Expected<size_t> read(char* buf, size_t n) override {
    for (;;) {
      ssize_t k = ::read(fd_, buf, n);
      if (k >= 0) return static_cast<size_t>(k);
      if (errno != EINTR) return Status::error(path_ + ": read: " + std::strerror(errno));
    }
  }

 private:
  int fd_;
  std::string path_;
};

// A plain file mapped whole (MAP_PRIVATE, so the parser's padding after the
// data is written to a private page, never to the file) and parsed in place:
// no copy into the parser's buffer (read(2)'s copy was 18 % of the CPU time,
// docs/performance.md). The address range is reserved with the padding
// first, then the file is mapped over its start. Pages the parser is done
// with are dropped (MADV_DONTNEED), so that the resident set stays near
// kReleaseBytes, not the file's size.
class MappedSource : public ByteSource, public InputView {
 public:
  static std::unique_ptr<MappedSource> map(int fd, size_t size) {
    long page = ::sysconf(_SC_PAGESIZE);
    size_t len = (size + kInputPadding + static_cast<size_t>(page) - 1) & ~(static_cast<size_t>(page) - 1);
    void* base = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return nullptr;
    void* m = ::mmap(base, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
    if (m == MAP_FAILED) {
      ::munmap(base, len);
      return nullptr;
    }
    ::madvise(m, size, MADV_SEQUENTIAL);
    auto s = std::unique_ptr<MappedSource>(new MappedSource());
    s->data = static_cast<char*>(m);
    s->size = size;
    s->len_ = len;
    return s;
  }
  ~MappedSource() override { ::munmap(data, len_); }
  Expected<size_t> read(char*, size_t) override { return size_t{0}; }  // never called: view() is
  InputView* view() override { return this; }
  void release(size_t offset) override {
    if (offset > released_) ::madvise(data + released_, offset - released_, MADV_DONTNEED);
    released_ = std::max(released_, offset);
  }

 private:
  MappedSource() = default;
  size_t len_ = 0;
  size_t released_ = 0;
};

class GzipSource : public ByteSource {
 public:
  GzipSource(gzFile f, std::string path) : f_(f), path_(std::move(path)) {}
  ~GzipSource() override { gzclose(f_); }
  Expected<size_t> read(char* buf, size_t n) override {
    unsigned ask = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    int k = gzread(f_, buf, ask);
    if (k < 0) {
      int code = 0;
      const char* msg = gzerror(f_, &code);
      return Status::error(path_ + ": gzip: " + (msg ? msg : "read error"));
    }
    if (k == 0 && !gzeof(f_)) {
      int code = 0;
      const char* msg = gzerror(f_, &code);
      if (code != Z_OK) return Status::error(path_ + ": gzip: " + (msg ? msg : "read error"));
    }
    return static_cast<size_t>(k);
  }

 private:
  gzFile f_;
  std::string path_;
};

}  // namespace

Expected<std::unique_ptr<ByteSource>> open_trace_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::error(path + ": " + std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  struct stat st {};
  if (::pread(fd, magic, 2, 0) == 2 && !(magic[0] == 0x1f && magic[1] == 0x8b) && ::fstat(fd, &st) == 0 &&
      S_ISREG(st.st_mode) && st.st_size > 0) {
    if (auto m = MappedSource::map(fd, static_cast<size_t>(st.st_size))) {
      ::close(fd);  // the mapping keeps the file
      return std::unique_ptr<ByteSource>(std::move(m));
    }
  }
  return open_trace_fd(fd, path);
}

Expected<std::unique_ptr<ByteSource>> open_trace_fd(int fd, const std::string& path) {
  unsigned char magic[2] = {0, 0};
  ssize_t k = ::pread(fd, magic, 2, 0);
  if (k == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    gzFile f = gzdopen(fd, "rb");
    if (!f) {
      ::close(fd);
      return Status::error(path + ": gzdopen failed");
    }
    gzbuffer(f, 1u << 20);
    return std::unique_ptr<ByteSource>(new GzipSource(f, path));
  }
  return std::unique_ptr<ByteSource>(new PlainSource(fd, path));
}

Expected<std::vector<std::string>> list_trace_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec) return Status::error(path + ": " + ec.message());
  if (!fs::is_directory(st)) return std::vector<std::string>{path};
  std::vector<std::string> out;
  for (const auto& d : fs::directory_iterator(path, ec)) {
    std::string name = d.path().filename().string();
    auto ends = [&](std::string_view s) { return name.size() >= s.size() && name.ends_with(s); };
    if (d.is_regular_file() && (ends(".json") || ends(".json.gz"))) out.push_back(d.path().string());
  }
  if (ec) return Status::error(path + ": " + ec.message());
  if (out.empty()) return Status::error(path + ": no *.json or *.json.gz trace files in the directory");
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace llmon::trace
