// Kernel classification by name. KernelType is HolisticTraceAnalysis's
// (hta/utils/utils.py get_kernel_type: the regular expressions are quoted in
// docs/trace.md); KernelClass is llmon's finer split by name pattern (GEMM,
// attention, normalisation, element-wise) used for the per-class breakdown.
// Pure functions; the compiled patterns are immutable and thread-safe.
#pragma once

#include <string_view>

namespace llmon::trace {

enum class KernelType { kCommunication, kMemory, kComputation, kOther };
enum class KernelClass { kCommunication, kMemory, kGemm, kAttention, kNorm, kElementwise, kOtherCompute, kOther };

KernelType kernel_type(std::string_view name);
KernelClass kernel_class(std::string_view name);
std::string_view kernel_type_name(KernelType t);    // "COMMUNICATION", "MEMORY", "COMPUTATION", "OTHER"
std::string_view kernel_class_name(KernelClass c);  // "communication", "memory", "gemm", ...

}  // namespace llmon::trace
