// Reading trace files: a ByteSource over a .json or .json.gz file (gzip is
// recognised by its magic bytes, not the name) and the list of rank files in
// a directory. The only I/O of the trace module; the parser and the analyses
// never touch the file system. Not thread-safe per source.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "trace/parser.h"

namespace llmon::trace {

// A plain regular file is mapped and parsed in place (ByteSource::view()):
// like any mapped file, one truncated by another process while it is parsed
// ends this one with SIGBUS, so the agent never uses it on files others
// write (its captures are gzip; its report route uses open_trace_fd).
Expected<std::unique_ptr<ByteSource>> open_trace_file(const std::string& path);
// The same over a file already open, always read(2) or zlib, never mapped
// (the source owns fd and closes it); `path` names it in errors. For callers
// that open with O_NOFOLLOW.
Expected<std::unique_ptr<ByteSource>> open_trace_fd(int fd, const std::string& path);

// path itself when it is a file; else the *.json and *.json.gz files directly
// inside the directory, sorted by name. An error when there are none.
Expected<std::vector<std::string>> list_trace_files(const std::string& path);

}  // namespace llmon::trace
