// kernel_type.h. Python's re.match anchors at the start only: each pattern is
// wrapped in ^(?:...) and matched with RE2::PartialMatch.
#include "trace/kernel_type.h"

#include <re2/re2.h>

namespace llmon::trace {
namespace {

struct Patterns {
  RE2 comm{"^(?:(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*))"};
  RE2 mem{"^(?:(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma))"};
  RE2 not_compute{
      "^(?:(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)|"
      "(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution))"};
  // llmon's own classes (case-insensitive), tried in this order.
  RE2 attention{"(?i)(flash|fmha|attn|attention|sdpa|_mha|mha_)"};
  RE2 gemm{"(?i)(gemm|cutlass|cublas|matmul|xmma|wgmma|hmma|s884|s1688|h1688|^fc-|_fc_|conv|scudnn|dgrad|wgrad)"};
  RE2 norm{"(?i)(norm|bn_fw|bn_bw)"};
  RE2 elementwise{
      "(?i)(elementwise|unrolled|vectorized|pointwise|triton_poi|^add|^mul|^div|relu|gelu|silu|sigmoid|"
      "tanh|fill|copy|cat_|index|where|softmax|dropout|reduce|triton_red|triton_per)"};
};

const Patterns& patterns() {
  static const Patterns p;  // immutable after construction
  return p;
}

re2::StringPiece piece(std::string_view s) {
  return re2::StringPiece(s.data(), s.size());
}

}  // namespace

KernelType kernel_type(std::string_view name) {
  const Patterns& p = patterns();
  if (RE2::PartialMatch(piece(name), p.comm)) return KernelType::kCommunication;
  if (RE2::PartialMatch(piece(name), p.mem)) return KernelType::kMemory;
  if (!RE2::PartialMatch(piece(name), p.not_compute)) return KernelType::kComputation;
  return KernelType::kOther;
}

KernelClass kernel_class(std::string_view name) {
  switch (kernel_type(name)) {
    case KernelType::kCommunication:
      return KernelClass::kCommunication;
    case KernelType::kMemory:
      return KernelClass::kMemory;
    case KernelType::kOther:
      return KernelClass::kOther;
    case KernelType::kComputation:
      break;
  }
  const Patterns& p = patterns();
  if (RE2::PartialMatch(piece(name), p.attention)) return KernelClass::kAttention;
  if (RE2::PartialMatch(piece(name), p.gemm)) return KernelClass::kGemm;
  if (RE2::PartialMatch(piece(name), p.norm)) return KernelClass::kNorm;
  if (RE2::PartialMatch(piece(name), p.elementwise)) return KernelClass::kElementwise;
  return KernelClass::kOtherCompute;
}

std::string_view kernel_type_name(KernelType t) {
  switch (t) {
    case KernelType::kCommunication:
      return "COMMUNICATION";
    case KernelType::kMemory:
      return "MEMORY";
    case KernelType::kComputation:
      return "COMPUTATION";
    case KernelType::kOther:
      return "OTHER";
  }
  return "OTHER";
}

std::string_view kernel_class_name(KernelClass c) {
  switch (c) {
    case KernelClass::kCommunication:
      return "communication";
    case KernelClass::kMemory:
      return "memory";
    case KernelClass::kGemm:
      return "gemm";
    case KernelClass::kAttention:
      return "attention";
    case KernelClass::kNorm:
      return "norm";
    case KernelClass::kElementwise:
      return "elementwise";
    case KernelClass::kOtherCompute:
      return "other_compute";
    case KernelClass::kOther:
      return "other";
  }
  return "other";
}

}  // namespace llmon::trace
