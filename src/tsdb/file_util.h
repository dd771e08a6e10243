// Small POSIX file helpers for the store's files: whole writes at an offset
// with a message naming the file, fsync of a directory, free space, CRC-32.
// Stateless; safe from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "base/status.h"

namespace llmon::tsdb {

// zlib CRC-32 (the one in docs/format/*.md).
uint32_t crc32_of(std::span<const uint8_t> bytes);
uint32_t crc32_of(const void* data, size_t n);

// pwrite()s all of `data` at `offset` (retrying short writes and EINTR). On
// failure the message names `path` and the errno text.
Status pwrite_all(int fd, const std::string& path, const void* data, size_t n, uint64_t offset);
// pread()s exactly n bytes (error on EOF, naming path and offset).
Status pread_all(int fd, const std::string& path, void* data, size_t n, uint64_t offset);
Status fdatasync_file(int fd, const std::string& path);
// Makes a new/removed/renamed entry in `dir` durable.
Status fsync_dir(const std::string& dir);
// Creates dir (and parents) if missing.
Status make_dirs(const std::string& dir);

// Bytes available to an unprivileged writer on the filesystem holding path
// (statvfs f_bavail * f_frsize). Injectable for tests through FreeSpaceFn.
Expected<uint64_t> free_bytes(const std::string& path);
using FreeSpaceFn = std::function<Expected<uint64_t>(const std::string& path)>;

// Little-endian fixed-width encode/decode on raw bytes.
inline void put_u16le(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void put_u32le(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void put_u64le(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint16_t get_u16le(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t get_u32le(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint64_t get_u64le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace llmon::tsdb
