// DynamicLibrary: RAII owner of a dlopen() handle (the NVML back end loads
// libnvidia-ml.so.1 this way, so no vendor library is a build or run
// dependency). open() reports dlerror()'s text naming the library; symbol()
// returns nullptr for a missing symbol so callers can fall back to older
// versioned names (nvmlX_v3 -> _v2 -> plain). Move-only; not thread-safe to
// open/close concurrently, but resolved symbols may be called from any thread.
#pragma once

#include <string>

#include "base/status.h"

namespace llmon::base {

class DynamicLibrary {
 public:
  DynamicLibrary() = default;
  ~DynamicLibrary();
  DynamicLibrary(DynamicLibrary&& o) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& o) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // dlopen(path, RTLD_NOW | RTLD_LOCAL). A bare soname searches the usual paths.
  static Expected<DynamicLibrary> open(const std::string& path);

  bool loaded() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  // The address of `name`, or nullptr when the library lacks it.
  void* symbol(const char* name) const;
  // Typed convenience: lib.function<int (*)(unsigned*)>("nvmlDeviceGetCount_v2").
  template <typename Fn>
  Fn function(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }
  // Forgets the handle without dlclose(): the library stays mapped for the
  // rest of the process (for code that may still be running inside it).
  void* release() {
    void* h = handle_;
    handle_ = nullptr;
    return h;
  }
  // The first of `names` the library has (newest first); nullptr if none.
  template <typename Fn>
  Fn first_function(std::initializer_list<const char*> names, const char** found = nullptr) const {
    for (const char* n : names) {
      if (void* p = symbol(n)) {
        if (found) *found = n;
        return reinterpret_cast<Fn>(p);
      }
    }
    return nullptr;
  }

 private:
  void close();
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace llmon::base
