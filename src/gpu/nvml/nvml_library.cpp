#include "gpu/nvml/nvml_library.h"

#include <initializer_list>

namespace llmon::gpu::nvml {
namespace {

struct Entry {
  std::string_view id;
  std::initializer_list<const char*> names;
};

#define LLMON_NVML_ENTRY(id, type, ...) {#id, {__VA_ARGS__}},
const Entry kEntries[] = {LLMON_NVML_FUNCTIONS(LLMON_NVML_ENTRY)};
#undef LLMON_NVML_ENTRY
static_assert(sizeof(kEntries) / sizeof(kEntries[0]) == kFnCount);

}  // namespace

std::string_view NvmlLibrary::function_name(Fn f) {
  return *kEntries[idx(f)].names.begin();
}

Expected<std::unique_ptr<NvmlLibrary>> NvmlLibrary::load(const std::string& path) {
  auto lib = base::DynamicLibrary::open(path);
  if (!lib) return lib.status();
  std::unique_ptr<NvmlLibrary> out(new NvmlLibrary());
  out->lib_ = std::move(*lib);
  for (size_t i = 0; i < kFnCount; ++i) {
    for (const char* n : kEntries[i].names) {
      if (void* p = out->lib_.symbol(n)) {
        out->ptr_[i] = p;
        out->symbol_[i] = n;
        break;
      }
    }
  }
  for (Fn need : {Fn::kInit, Fn::kDeviceCount, Fn::kHandleByIndex}) {
    if (!out->has(need))
      return Status::error(path + " is not an NVML library: it exports none of the " +
                           std::string(function_name(need)) + " symbols");
  }
  out->maybe_cc_stride_ = out->lib_.symbol("nvmlDeviceGetConfComputeMemSizeInfo") != nullptr &&
                          out->lib_.symbol("nvmlDeviceGetRunningProcessDetailList") == nullptr;
  return out;
}

ProcessAbi NvmlLibrary::process_abi(Fn f) const {
  std::string_view s = symbol(f);
  return s.ends_with("_v2") || s.ends_with("_v3") ? ProcessAbi::kV2 : ProcessAbi::kV1;
}

std::string NvmlLibrary::error_string(Return r) const {
  const char* s = nullptr;
  if (has(Fn::kErrorString)) s = reinterpret_cast<FnErrorString>(ptr_[idx(Fn::kErrorString)])(r);
  if (s == nullptr || *s == '\0') return "NVML error " + std::to_string(r);
  return s;
}

uint64_t NvmlLibrary::total_calls() const {
  uint64_t n = 0;
  for (const auto& c : calls_) n += c.load(std::memory_order_relaxed);
  return n;
}

NvmlLibrary::~NvmlLibrary() {
  if (leak_.load()) (void)lib_.release();
}

}  // namespace llmon::gpu::nvml
