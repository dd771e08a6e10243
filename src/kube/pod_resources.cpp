// Decoding the pod-resources List answer and asking the kubelet for it
// (pod_resources.h).
#include "kube/pod_resources.h"

#include "base/proto_wire.h"
#include "kube/unix_grpc.h"

namespace llmon::kube {
namespace {

using base::ProtoReader;
constexpr std::string_view kWhat = "ListPodResourcesResponse";

// Calls fn(field, wire, reader) for each field of the message at `at`.
template <typename Fn>
Status each_field(std::string_view msg, size_t at, Fn&& fn) {
  ProtoReader r(msg, at, kWhat);
  while (!r.done()) {
    uint64_t f = 0;
    int w = 0;
    if (Status st = r.tag(f, w); !st) return st;
    if (Status st = fn(f, w, r); !st) return st;
  }
  return Status::ok();
}

// A repeated sub-message field: appends one element to `out` and parses it.
template <typename T, typename Parse>
Status repeated_message(ProtoReader& r, int wire, std::string_view what, std::vector<T>& out, Parse&& parse) {
  std::string_view sub;
  size_t sub_at = 0;
  if (Status st = r.expect(wire, 2, what); !st) return st;
  if (Status st = r.bytes(sub, sub_at); !st) return st;
  return parse(sub, sub_at, out.emplace_back());
}

Status parse_devices(std::string_view msg, size_t at, ContainerDevices& d) {
  return each_field(msg, at, [&](uint64_t f, int w, ProtoReader& r) {
    if (f == 1) return r.string_field(w, "resource_name", d.resource_name);
    if (f == 2) return r.string_field(w, "device_ids", d.device_ids.emplace_back());
    return r.skip(w);
  });
}

Status parse_container(std::string_view msg, size_t at, ContainerResources& c) {
  return each_field(msg, at, [&](uint64_t f, int w, ProtoReader& r) {
    if (f == 1) return r.string_field(w, "container name", c.name);
    if (f == 2) return repeated_message(r, w, "devices", c.devices, parse_devices);
    return r.skip(w);
  });
}

Status parse_pod(std::string_view msg, size_t at, PodResources& p) {
  return each_field(msg, at, [&](uint64_t f, int w, ProtoReader& r) {
    if (f == 1) return r.string_field(w, "pod name", p.name);
    if (f == 2) return r.string_field(w, "namespace", p.namespace_);
    if (f == 3) return repeated_message(r, w, "containers", p.containers, parse_container);
    return r.skip(w);
  });
}

bool is_nvidia_resource(std::string_view name, const std::vector<std::string>& extra) {
  if (name == "nvidia.com/gpu" || name.starts_with("nvidia.com/mig-")) return true;
  for (const auto& e : extra)
    if (name == e) return true;
  return false;
}

}  // namespace

Expected<std::vector<PodResources>> parse_list_pod_resources(std::string_view message) {
  std::vector<PodResources> pods;
  Status st = each_field(message, 0, [&](uint64_t f, int w, ProtoReader& r) {
    if (f == 1) return repeated_message(r, w, "pod_resources", pods, parse_pod);
    return r.skip(w);
  });
  if (!st) return st;
  return pods;
}

std::map<std::string, PodRef, std::less<>> gpu_holders(const std::vector<PodResources>& pods,
                                                       const std::vector<std::string>& extra_resources) {
  std::map<std::string, PodRef, std::less<>> out;
  for (const auto& p : pods) {
    for (const auto& c : p.containers) {
      for (const auto& d : c.devices) {
        if (!is_nvidia_resource(d.resource_name, extra_resources)) continue;
        for (const auto& id : d.device_ids) {
          std::string_view uuid = id;
          if (auto cut = uuid.find("::"); cut != std::string_view::npos) uuid = uuid.substr(0, cut);
          if (uuid.empty()) continue;
          PodRef ref{p.name, p.namespace_, c.name};
          auto [it, added] = out.try_emplace(std::string(uuid), ref);
          if (!added && ref < it->second) it->second = std::move(ref);
        }
      }
    }
  }
  return out;
}

PodResourcesSource::State PodResourcesSource::refresh() {
  holders_.clear();
  if (path_.empty()) return state_ = State::kMissing;
  GrpcRequest req;
  req.path = std::string(kPodResourcesListPath);  // ListPodResourcesRequest has no fields: an empty message
  UnixGrpcOptions opts;
  opts.timeout_ms = timeout_ms_;
  auto answer = unix_grpc_call(path_, req, opts);
  Status st = answer.status();
  if (answer) {
    auto pods = parse_list_pod_resources(*answer);
    if (pods) {
      holders_ = gpu_holders(*pods);
      reported_ = false;
      return state_ = State::kOk;
    }
    st = pods.status().with_context(path_);
  }
  if (st.is_no_data()) {
    reported_ = false;
    return state_ = State::kMissing;
  }
  if (!reported_ && log_)
    log_->warn("kubelet pod-resources socket is not usable", {{"path", path_}, {"err", st.message()}});
  reported_ = true;
  return state_ = State::kBroken;
}

}  // namespace llmon::kube
