// Running-process lists (with detection of the 32-byte entry stride some
// R535 drivers write through the 24-byte _v3 ABI) and per-process utilisation.
#include <algorithm>
#include <cstring>
#include <map>

#include "gpu/nvml/sampler_state.h"

namespace llmon::gpu::nvml {
namespace {

constexpr unsigned kCcStride = sizeof(ProcessInfoCc);  // the larger stride
constexpr unsigned char kFill = 0xAA;

}  // namespace

void NvmlSampler::read_process_list(Dev& d, Fn f, char type, std::vector<ProcessSample>& out) {
  if (d.off.test(static_cast<size_t>(f)) || !lib_.has(f) || d.lost) return;
  ProcessAbi abi = lib_.process_abi(f);
  bool v3 = lib_.symbol(f).ends_with("_v3");
  unsigned cap = std::max<unsigned>(64, static_cast<unsigned>(proc_buf_.size() / kCcStride));
  for (int attempt = 0; attempt < 3; ++attempt) {
    proc_buf_.assign(static_cast<size_t>(cap) * kCcStride, kFill);
    unsigned n = cap;
    Return r = lib_.call<FnDevProcesses>(f, d.h, &n, static_cast<void*>(proc_buf_.data()));
    if (r == kErrInsufficientSize && n > cap) {
      cap = n + 16;
      continue;
    }
    if (!check(d, f, r)) return;
    n = std::min(n, cap);
    unsigned stride = abi == ProcessAbi::kV1 ? sizeof(ProcessInfoV1) : sizeof(ProcessInfoV2);
    if (v3 && n > 0) {
      // Bytes [24n, 32n) stay 0xAA unless the driver wrote 32-byte entries.
      const unsigned char* tail = proc_buf_.data() + static_cast<size_t>(n) * sizeof(ProcessInfoV2);
      size_t len = static_cast<size_t>(n) * (kCcStride - sizeof(ProcessInfoV2));
      bool untouched = std::all_of(tail, tail + len, [](unsigned char c) { return c == kFill; });
      stride = untouched ? static_cast<unsigned>(sizeof(ProcessInfoV2)) : kCcStride;
      if (stride != d.stride) {
        if (d.stride != 0 || stride == kCcStride)
          log_.info("NVML process entry stride detected",
                    {{"gpu", d.id.gpu}, {"bytes", std::to_string(stride)}, {"function", lib_.symbol(f)}});
        d.stride = stride;
      }
    }
    for (unsigned i = 0; i < n; ++i) {
      const unsigned char* e = proc_buf_.data() + static_cast<size_t>(i) * stride;
      ProcessSample p;
      p.type = type;
      unsigned long long mem = 0;
      std::memcpy(&p.pid, e + offsetof(ProcessInfoV2, pid), sizeof(unsigned));
      std::memcpy(&mem, e + offsetof(ProcessInfoV2, usedGpuMemory), sizeof mem);
      if (abi == ProcessAbi::kV2) {
        std::memcpy(&p.gpu_instance, e + offsetof(ProcessInfoV2, gpuInstanceId), sizeof(unsigned));
        std::memcpy(&p.compute_instance, e + offsetof(ProcessInfoV2, computeInstanceId), sizeof(unsigned));
      }
      p.used_memory_bytes = mem == kValueNotAvailable ? kNa : static_cast<double>(mem);
      auto same = std::find_if(out.begin(), out.end(), [&](const ProcessSample& q) { return q.pid == p.pid; });
      if (same != out.end()) {
        if (same->type != type) same->type = 'B';
        continue;
      }
      out.push_back(p);
    }
    return;
  }
}

void NvmlSampler::read_process_utilization(Dev& d, std::vector<ProcessSample>& procs) {
  Fn f = Fn::kProcessUtilization;
  if (d.off.test(static_cast<size_t>(f)) || !lib_.has(f) || d.lost) return;
  unsigned cap = std::max<unsigned>(64, static_cast<unsigned>(util_buf_.size()));
  unsigned n = 0;
  Return r = kSuccess;
  for (int attempt = 0; attempt < 3; ++attempt) {
    util_buf_.resize(cap);
    n = cap;
    r = lib_.call<FnDevProcessUtil>(f, d.h, util_buf_.data(), &n, d.last_util_ts);
    if (r == kErrInsufficientSize && n > cap) {
      cap = n + 16;
      continue;
    }
    break;
  }
  if (r == kErrNotFound)
    n = 0;  // no process was busy since the last sample
  else if (!check(d, f, r))
    return;
  n = std::min(n, cap);
  // Processes without a sample had no utilisation in the window: 0.
  for (auto& p : procs) p.sm_util = p.mem_util = p.enc_util = p.dec_util = 0;
  struct Acc {
    double sm = 0, mem = 0, enc = 0, dec = 0;
    int n = 0;
  };
  std::map<unsigned, Acc> acc;
  for (unsigned i = 0; i < n; ++i) {
    const auto& u = util_buf_[i];
    if (u.timeStamp <= d.last_util_ts && d.last_util_ts != 0) continue;
    if (u.smUtil > 100 || u.memUtil > 100 || u.encUtil > 100 || u.decUtil > 100) continue;  // driver garbage
    auto& a = acc[u.pid];
    a.sm += u.smUtil;
    a.mem += u.memUtil;
    a.enc += u.encUtil;
    a.dec += u.decUtil;
    ++a.n;
  }
  unsigned long long newest = d.last_util_ts;
  for (unsigned i = 0; i < n; ++i) newest = std::max(newest, util_buf_[i].timeStamp);
  d.last_util_ts = newest;
  for (auto& p : procs) {
    auto it = acc.find(p.pid);
    if (it == acc.end()) continue;
    double k = 100.0 * it->second.n;
    p.sm_util = it->second.sm / k;
    p.mem_util = it->second.mem / k;
    p.enc_util = it->second.enc / k;
    p.dec_util = it->second.dec / k;
  }
}

void NvmlSampler::read_processes(Dev& d, DeviceSample& s) {
  read_process_list(d, Fn::kComputeProcesses, 'C', s.processes);
  read_process_list(d, Fn::kGraphicsProcesses, 'G', s.processes);
  if (!s.processes.empty()) read_process_utilization(d, s.processes);
}

}  // namespace llmon::gpu::nvml
