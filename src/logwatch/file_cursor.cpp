#include "logwatch/file_cursor.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace llmon::logwatch {

Expected<uint32_t> crc_at(int fd, uint64_t offset, uint32_t len) {
  std::vector<unsigned char> buf(len);
  size_t got = 0;
  while (got < len) {
    ssize_t n = ::pread(fd, buf.data() + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::error(std::string("pread: ") + std::strerror(errno));
    if (n == 0) return Status::error("short file");
    got += static_cast<size_t>(n);
  }
  return static_cast<uint32_t>(::crc32(0L, buf.data(), static_cast<uInt>(len)));
}

Status fingerprint(int fd, uint64_t size, FileCursor& c) {
  c.head_len = static_cast<uint32_t>(std::min<uint64_t>(size, kFingerprintBytes));
  c.tail_len = static_cast<uint32_t>(std::min<uint64_t>(c.offset, kFingerprintBytes));
  auto head = crc_at(fd, 0, c.head_len);
  if (!head) return head.status();
  auto tail = crc_at(fd, c.offset - c.tail_len, c.tail_len);
  if (!tail) return tail.status();
  c.head_crc = *head;
  c.tail_crc = *tail;
  return Status::ok();
}

bool matches(int fd, const struct stat& st, const FileCursor& c, bool ignore_inode) {
  if (!ignore_inode && (static_cast<uint64_t>(st.st_dev) != c.dev || static_cast<uint64_t>(st.st_ino) != c.ino))
    return false;
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < c.offset || size < c.head_len) return false;
  auto head = crc_at(fd, 0, c.head_len);
  if (!head || *head != c.head_crc) return false;
  auto tail = crc_at(fd, c.offset - c.tail_len, c.tail_len);
  return tail && *tail == c.tail_crc;
}

}  // namespace llmon::logwatch
