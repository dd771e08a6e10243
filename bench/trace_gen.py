#!/usr/bin/python3
"""Writes a synthetic Kineto trace of about SIZE_MB megabytes for
bench/trace_parse.sh, laid out as libkineto's output_json.cpp writes it
(one key per line group, args blocks, ac2g flows, ProfilerStep#N
annotations, kernels on two streams with Kineto's kernel args, NCCL
kernels with their collective args). Deterministic.
Usage: trace_gen.py SIZE_MB OUT.json"""
import sys

HEAD = """{
  "schemaVersion": 1,
  "deviceProperties": [
    {
      "id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85017755648,
      "computeMajor": 9, "computeMinor": 0,
      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
      "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32,
      "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 233472,
      "numSms": 132, "sharedMemPerBlockOptin": 232448
    }
  ],
  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8, "pg_count": 1, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 8, "ranks": [0, 1, 2, 3, 4, 5, 6, 7]}], "nccl_version": "2.20.5"},
  "traceEvents": [
"""
OP = """  {
    "ph": "X", "cat": "cpu_op", "name": "%s", "pid": 4242, "tid": 4242,
    "ts": %d.%03d, "dur": %d.%03d,
    "args": {
      "External id": %d,"Record function id": 0, "Sequence number": %d, "Fwd thread id": 0, "Input Dims": [[8, 2048, 4096], [4096, 4096], []], "Input type": ["c10::BFloat16", "c10::BFloat16", ""], "Ev Idx": %d
    }
  },
"""
LAUNCH = """  {
    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242,
    "ts": %d.%03d, "dur": 4.120,
    "args": {
      "External id": %d, "cbid": 211, "correlation": %d
    }
  },
  {
    "ph": "s", "id": %d, "pid": 4242, "tid": 4242, "ts": %d.%03d,
    "cat": "ac2g", "name": "ac2g"
  },
"""
KERNEL = """  {
    "ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": %d,
    "ts": %d.%03d, "dur": %d.%03d,
    "args": {
      "External id": %d,
      "queued": 0, "device": 0, "context": 1,
      "stream": %d, "correlation": %d,
      "registers per thread": 168,
      "shared memory": 98304,
      "blocks per SM": 1.212121,
      "warps per SM": 4.848485,
      "grid": [160, 1, 1],
      "block": [128, 1, 1],
      "est. achieved occupancy %%": 6%s
    }
  },
  {
    "ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %d.%03d,
    "cat": "ac2g", "name": "ac2g", "bp": "e"
  },
"""
STEP = """  {
    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 4242, "tid": 4242,
    "ts": %d.%03d, "dur": %d.%03d,
    "args": {
      "External id": %d, "Record function id": 0, "Ev Idx": %d
    }
  },
"""
TAIL = """  {
    "name": "Record Window End", "ph": "i", "s": "g",
    "pid": "", "tid": "", "ts": %d.%03d
  }
],
  "traceName": "synthetic.pt.trace.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1727743122000000000
}
"""
KERNELS = [
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "aten::mm", 7, 900),
    ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)", "aten::native_layer_norm", 7, 310),
    ("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(Flash_fwd_params)", "aten::_flash_attention_forward", 7, 650),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)", "aten::add", 7, 120),
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "nccl:all_reduce", 20, 1400),
]
NCCL_ARGS = ',\n      "Collective name": "allreduce", "In msg nelems": 16777216, "Out msg nelems": 16777216, "Group size": 8, "dtype": "BFloat16", "Process Group Name": "0"'


def main(size_mb, out):
    target = size_mb * 1_000_000
    w = open(out, "w")
    w.write(HEAD)
    written = len(HEAD)
    ts = 3605057436108000  # ns
    ext = corr = idx = step = 0
    gpu_free = {7: ts, 20: ts}
    while written < target:
        step += 1
        step_start = ts
        chunk = []
        for _ in range(200):
            for name, op, stream, kdur_us in KERNELS:
                ext += 1
                corr += 1
                idx += 1
                op_dur = 25_000
                chunk.append(OP % (op, ts // 1000, ts % 1000, op_dur // 1000, op_dur % 1000, ext, ext, idx))
                lt = ts + 5_000
                chunk.append(LAUNCH % (lt // 1000, lt % 1000, ext, corr, corr, lt // 1000, lt % 1000))
                ks = max(gpu_free[stream], lt + 8_000)
                kd = kdur_us * 1000 + (corr * 7919) % 50_000
                gpu_free[stream] = ks + kd
                extra = NCCL_ARGS if stream == 20 else ""
                chunk.append(KERNEL % (name, stream, ks // 1000, ks % 1000, kd // 1000, kd % 1000, ext, stream, corr,
                                       extra, corr, stream, ks // 1000, ks % 1000))
                ts += op_dur + 2_000
        sd = ts - step_start
        idx += 1
        chunk.insert(0, STEP % (step, step_start // 1000, step_start % 1000, sd // 1000, sd % 1000, ext, idx))
        text = "".join(chunk)
        w.write(text)
        written += len(text)
    tail = TAIL % (ts // 1000, ts % 1000)
    w.write(tail)
    w.close()


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
