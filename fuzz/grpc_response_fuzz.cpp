// Fuzz target: what a gRPC server sends back to a unary call
// (kube/grpc_call.h) and the ListPodResourcesResponse decoder
// (kube/pod_resources.h). The bytes are fed to the call in two pieces and
// must end in a message, an error or "more input needed", never a crash; the
// same bytes are also decoded directly as a pod list, and a pod list that
// decodes yields holders for device IDs it contains.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "kube/grpc_call.h"
#include "kube/pod_resources.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmon::kube;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  GrpcRequest req;
  req.path = std::string(kPodResourcesListPath);
  GrpcUnaryCall call(req, 1 << 20);
  (void)call.take_output();
  const size_t half = size / 2;
  if (call.feed(in.substr(0, half))) (void)call.feed(in.substr(half));
  (void)call.take_output();
  if (!call.done()) (void)call.end_of_input();
  if (!call.done()) std::abort();
  auto msg = call.result();
  for (std::string_view m : {std::string_view(in), msg ? std::string_view(*msg) : std::string_view()}) {
    auto pods = parse_list_pod_resources(m);
    if (!pods) continue;
    for (const auto& [id, ref] : gpu_holders(*pods)) {
      if (id.empty()) std::abort();
      if (m.find(id) == std::string_view::npos) std::abort();
    }
  }
  return 0;
}
