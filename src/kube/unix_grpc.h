// Runs one GrpcUnaryCall (grpc_call.h) over a Unix stream socket, all of it
// under one deadline: connect, write, read until the call ends. The only I/O
// of the gRPC client. A socket file that does not exist is a "no data"
// Status (the kubelet is not there: normal); every other failure is an error
// that names the socket path. Blocking; safe to call from any one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "kube/grpc_call.h"

namespace llmon::kube {

struct UnixGrpcOptions {
  int64_t timeout_ms = 1000;
  size_t max_response_bytes = 16 << 20;  // the kubelet's own gRPC limit is 16 MiB
};

Expected<std::string> unix_grpc_call(const std::string& socket_path, const GrpcRequest& request,
                                     const UnixGrpcOptions& opts);

}  // namespace llmon::kube
