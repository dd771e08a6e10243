#include "tsdb/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace llmon::tsdb {

namespace {
std::string errno_text(int err) { return std::strerror(err); }
}  // namespace

uint32_t crc32_of(const void* data, size_t n) {
  uLong c = crc32(0L, Z_NULL, 0);
  const auto* p = static_cast<const Bytef*>(data);
  while (n > 0) {  // zlib takes uInt lengths
    uInt step = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    c = crc32(c, p, step);
    p += step;
    n -= step;
  }
  return static_cast<uint32_t>(c);
}

uint32_t crc32_of(std::span<const uint8_t> bytes) { return crc32_of(bytes.data(), bytes.size()); }

Status pwrite_all(int fd, const std::string& path, const void* data, size_t n, uint64_t offset) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return Status::error(path + ": write at offset " + std::to_string(offset) + ": " + errno_text(errno));
    }
    if (w == 0) return Status::error(path + ": write at offset " + std::to_string(offset) + " wrote nothing");
    p += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return Status::ok();
}

Status pread_all(int fd, const std::string& path, void* data, size_t n, uint64_t offset) {
  auto* p = static_cast<uint8_t*>(data);
  while (n > 0) {
    ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::error(path + ": read at offset " + std::to_string(offset) + ": " + errno_text(errno));
    }
    if (r == 0) return Status::error(path + ": unexpected end of file at offset " + std::to_string(offset));
    p += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return Status::ok();
}

Status fdatasync_file(int fd, const std::string& path) {
  if (::fdatasync(fd) != 0) return Status::error(path + ": fdatasync: " + errno_text(errno));
  return Status::ok();
}

Status fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::error(dir + ": open directory: " + errno_text(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Status::error(dir + ": fsync directory: " + errno_text(err));
  return Status::ok();
}

Status make_dirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::error(dir + ": cannot create directory: " + ec.message());
  return Status::ok();
}

Expected<uint64_t> free_bytes(const std::string& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0) return Status::error(path + ": statvfs: " + errno_text(errno));
  return static_cast<uint64_t>(st.f_bavail) * static_cast<uint64_t>(st.f_frsize);
}

}  // namespace llmon::tsdb
