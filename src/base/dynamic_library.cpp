#include "base/dynamic_library.h"

#include <dlfcn.h>

namespace llmon::base {

DynamicLibrary::~DynamicLibrary() { close(); }

DynamicLibrary::DynamicLibrary(DynamicLibrary&& o) noexcept : handle_(o.handle_), path_(std::move(o.path_)) {
  o.handle_ = nullptr;
}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& o) noexcept {
  if (this != &o) {
    close();
    handle_ = o.handle_;
    path_ = std::move(o.path_);
    o.handle_ = nullptr;
  }
  return *this;
}

void DynamicLibrary::close() {
  if (handle_) ::dlclose(handle_);
  handle_ = nullptr;
}

Expected<DynamicLibrary> DynamicLibrary::open(const std::string& path) {
  ::dlerror();  // clear a stale error
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* err = ::dlerror();
    return Status::error("cannot load " + path + ": " + (err ? err : "unknown dlopen error"));
  }
  DynamicLibrary lib;
  lib.handle_ = h;
  lib.path_ = path;
  return lib;
}

void* DynamicLibrary::symbol(const char* name) const {
  if (!handle_) return nullptr;
  return ::dlsym(handle_, name);
}

}  // namespace llmon::base
