// Real-shaped log lines for the built-in packs (deploy/logwatch/*.yml): each
// positive line with the one rule it must match and the named groups it
// must give; near misses that must match no rule. Shared by packs_test and
// matcher_diff_test. Shapes from driver, kernel, PyTorch and NCCL logs.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace llmon::logwatch::testing {

struct PackCase {
  std::string rule;
  std::string line;
  std::map<std::string, std::string> groups;  // every named group that took part
};

inline std::vector<PackCase> pack_positives() {
  return {
      // training.yml
      {"cuda_oom",
       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
       "79.15 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.12 GiB memory in use.",
       {{"size", "2.00 GiB"}, {"gpu", "0"}}},
      {"cuda_oom",
       "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 3; 15.78 GiB total capacity; 14.21 GiB "
       "already allocated; 3.19 MiB free; 14.74 GiB reserved in total by PyTorch)",
       {{"size", "20.00 MiB"}, {"gpu", "3"}}},
      {"cuda_oom",
       "[rank5]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1024.00 MiB. GPU 5 has a total "
       "capacity of 79.33 GiB of which 897.94 MiB is free.",
       {{"size", "1024.00 MiB"}, {"gpu", "5"}}},
      {"cuda_oom", "RuntimeError: CUDA error: out of memory", {}},
      {"cuda_oom", "[default0]:torch.OutOfMemoryError", {}},
      {"nan_inf_loss", "step 1200: loss is nan, skipping batch", {}},
      {"nan_inf_loss", "Epoch 3 | iter 4410 | Loss: inf | lr 3.0e-4", {}},
      {"nan_inf_loss", "{'train_loss=nan', 'lr': 1e-05}", {}},
      {"nan_inf_loss", "WARNING: grad norm is nan at step 918", {}},
      {"nan_inf_loss", "iteration 20/100 | grad_norm: NaN | loss scale: 1.0", {}},
      {"nan_inf_loss", "Found NaN or Inf in gradients, skipping update", {}},
      {"nan_inf_loss",
       "RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be "
       "clipped.",
       {}},
      {"nan_inf_loss", "RuntimeError: Function 'MulBackward0' returned nan values in its 0th output.", {}},
      {"disk_quota", "OSError: [Errno 122] Disk quota exceeded: '/data/alice/ckpt/step_100.pt'", {}},
      {"disk_quota", "cp: error writing '/scratch/alice/data.bin': Disk quota exceeded", {}},
      {"disk_quota", "write error: EDQUOT while flushing /data/alice/run/events.out", {}},
      {"no_space", "OSError: [Errno 28] No space left on device", {}},
      {"no_space", "RuntimeError: [Errno 28] while writing /ckpt/step_9/optim.pt", {}},
      {"no_space", "tar: /tmp/out.tar: Cannot write: No space left on device", {}},
      {"nccl_error",
       "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
       "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
       {}},
      {"nccl_error",
       "ncclUnhandledCudaError: Call to CUDA function failed.",
       {{"nccl_code", "ncclUnhandledCudaError"}}},
      {"nccl_error",
       "ncclSystemError: System call (e.g. socket, malloc) or external library call failed.",
       {{"nccl_code", "ncclSystemError"}}},
      {"nccl_error", "RuntimeError: ncclInternalError: Internal check failed.", {{"nccl_code", "ncclInternalError"}}},
      {"nccl_error",
       "node7:2211:2390 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<36241> with error 12, opcode 0, len "
       "0, vendor err 129",
       {}},
      {"nccl_timeout",
       "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
       "WorkNCCL(SeqNum=668, OpType=ALLREDUCE, NumelIn=52, NumelOut=52, Timeout(ms)=600000) ran for 600097 "
       "milliseconds before timing out.",
       {{"rank", "0"}, {"op", "ALLREDUCE"}}},
      {"nccl_timeout", "RuntimeError: [Rank 3] Watchdog caught collective operation timeout", {{"rank", "3"}}},
      {"nccl_timeout",
       "[E ProcessGroupNCCL.cpp:828] [Rank 5] Some NCCL operations have failed or timed out. Due to the asynchronous "
       "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
       {{"rank", "5"}}},
      {"nccl_timeout",
       "[PG 0 Rank 2] Timeout at NCCL work: 12, last enqueued NCCL work: 12, last completed NCCL work: 11.",
       {{"rank", "2"}}},
      {"nccl_timeout",
       "[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Heartbeat monitor timed out! Process will be terminated after "
       "dumping debug info.",
       {}},
      {"rpc_failure",
       "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
       "failed. See inner exception for details.",
       {}},
      {"rpc_failure",
       "[W socket.cpp:663] [c10d] The client socket has failed to connect to [node1]:29500 (errno: 111 - Connection "
       "refused).",
       {}},
      {"rpc_failure",
       "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer "
       "[10.0.0.2]:19321",
       {}},
      {"rpc_failure",
       "torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] "
       "via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer",
       {}},
      {"rpc_failure",
       "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 joined.",
       {}},
      {"rpc_failure", "RPCErr:1:RPC ran for more than set timeout (60000 ms) and will now be marked with an error", {}},
      {"rpc_failure",
       "grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with: status = "
       "StatusCode.UNAVAILABLE",
       {{"grpc_status", "UNAVAILABLE"}}},
      {"rpc_failure", "\tstatus = StatusCode.DEADLINE_EXCEEDED", {{"grpc_status", "DEADLINE_EXCEEDED"}}},
      {"python_traceback", "Traceback (most recent call last):", {}},
      {"python_traceback", "[rank3]: Traceback (most recent call last):", {}},
      {"killed_by_signal",
       "E1203 05:01:02.123000 4242 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -9) "
       "local_rank: 0 (pid: 1234) of binary: /usr/bin/python3",
       {{"exitcode", "-9"}}},
      {"killed_by_signal",
       "subprocess.CalledProcessError: Command '['python', 'x.py']' died with <Signals.SIGKILL: 9>.",
       {{"signal", "SIGKILL"}}},
      {"killed_by_signal", "  traceback : Signal 9 (SIGKILL) received by PID 1234", {{"signal", "SIGKILL"}}},
      {"killed_by_signal",
       "torch.distributed.elastic.multiprocessing.api.SignalException: Process 77 got signal: 15",
       {{"signal", "15"}}},
      {"killed_by_signal", "[2026-12-03 05:00:00] received signal SIGTERM, shutting down", {{"signal", "SIGTERM"}}},
      {"killed_by_signal", "Killed", {}},
      {"killed_by_signal",
       "/var/spool/slurmd/job123/slurm_script: line 12: 4242 Killed                  python train.py",
       {}},
      {"checkpoint_save_failed",
       "RuntimeError: [enforce fail at inline_container.cc:764] . PytorchStreamWriter failed writing file data/12: "
       "file write failed",
       {}},
      {"checkpoint_save_failed",
       "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 2880 vs 2780",
       {}},
      {"checkpoint_save_failed", "ERROR: Failed to save checkpoint to /ckpt/step_1000", {}},
      {"checkpoint_save_failed", "Exception while saving checkpoint at step 4000: timeout", {}},
      {"checkpoint_save_failed", "RuntimeError: File /ckpt/model_00.pt cannot be opened.", {}},
      // kernel.yml: Xid, several drivers' shapes
      {"xid",
       "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.",
       {{"pci", "0000:3b:00"}, {"xid", "79"}, {"pid", "1234"}, {"process", "python3"}}},
      {"xid",
       "NVRM: Xid (PCI:0000:b1:00): 31, pid=8912, Ch 00000008, intr 10000000. MMU Fault: ENGINE GRAPHICS "
       "GPCCLIENT_T1_0 "
       "faulted @ 0x7f2e_0c000000.",
       {{"pci", "0000:b1:00"}, {"xid", "31"}, {"pid", "8912"}}},
      {"xid",
       "NVRM: Xid (0000:02:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 0): Out Of Range Address",
       {{"pci", "0000:02:00"}, {"xid", "13"}}},
      {"xid",
       "NVRM: Xid (PCI:3b:00): 31, pid='<unknown>', name=<unknown>, Ch 00000008, intr 00000000.",
       {{"pci", "3b:00"}, {"xid", "31"}}},
      {"xid",
       "NVRM: Xid (PCI:0009:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 0x00000000)",
       {{"pci", "0009:01:00"}, {"xid", "149"}, {"xid_severity", "Fatal"}}},
      {"xid",
       "[ 1234.567890] NVRM: Xid (PCI:0000:17:00): 48, pid=2211, name=pt_main_thread, An uncorrectable double "
       "bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
       {{"pci", "0000:17:00"}, {"xid", "48"}, {"pid", "2211"}, {"process", "pt_main_thread"}}},
      {"xid",
       "NVRM: Xid (PCI:0000:c1:00): 94, pid=931, name=python, Contained: CE User Channel (0x9). RST: No",
       {{"pci", "0000:c1:00"}, {"xid", "94"}, {"pid", "931"}, {"process", "python"}}},
      {"sxid",
       "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 30 LTSSM Fault Up",
       {{"switch", "nvidia-nvswitch0"}, {"pci", "0000:05:00.0"}, {"sxid", "20034"}, {"sxid_severity", "Fatal"}}},
      {"sxid",
       "nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 12028, Non-fatal, Link 45 egress non-posted PRIV error (First)",
       {{"switch", "nvidia-nvswitch3"}, {"pci", "0000:c1:00.0"}, {"sxid", "12028"}, {"sxid_severity", "Non-fatal"}}},
      {"sxid",
       "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 24007, Fatal, Link 44 sourcetrack TCEN0 crumbstore ECC DBE",
       {{"switch", "nvidia-nvswitch1"}, {"pci", "0000:06:00.0"}, {"sxid", "24007"}, {"sxid_severity", "Fatal"}}},
      {"gpu_fallen_off_bus", "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.", {{"pci", "0000:3b:00.0"}}},
      {"gpu_fallen_off_bus", "NVRM: GPU at PCI:0000:86:00: GPU has fallen off the bus.", {{"pci", "0000:86:00"}}},
      {"gpu_fallen_off_bus", "NVRM: GPU has fallen off the bus.", {}},
      {"aer_corrected",
       "nvidia 0000:3b:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
       {{"pci", "0000:3b:00.0"}, {"type", "Physical Layer"}}},
      {"aer_corrected",
       "pcieport 0000:00:01.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, id=0008(Transmitter ID)",
       {{"pci", "0000:00:01.0"}, {"type", "Data Link Layer"}}},
      {"aer_nonfatal",
       "nvidia 0000:3b:00.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, "
       "(Requester ID)",
       {{"pci", "0000:3b:00.0"}, {"type", "Transaction Layer"}}},
      {"aer_nonfatal",
       "mlx5_core 0000:5e:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer",
       {{"pci", "0000:5e:00.0"}, {"type", "Transaction Layer"}}},
      {"aer_fatal",
       "nvidia 0000:3b:00.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)",
       {{"pci", "0000:3b:00.0"}, {"type", "Transaction Layer"}}},
      {"aer_fatal",
       "pcieport 0000:80:03.1: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible",
       {{"pci", "0000:80:03.1"}, {"type", "Inaccessible"}}},
      {"aer_corrected",
       "mlx5_core 0000:5e:00.1: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)",
       {{"pci", "0000:5e:00.1"}, {"type", "Data Link Layer"}}},
      {"aer_nonfatal",
       "pcieport 0000:00:03.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, "
       "(Requester ID)",
       {{"pci", "0000:00:03.0"}, {"type", "Transaction Layer"}}},
      {"aer_fatal",
       "nvidia 0000:b1:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)",
       {{"pci", "0000:b1:00.0"}, {"type", "Transaction Layer"}}},
      {"hung_task",
       "[ 4920.311] INFO: task jbd2/nvme0n1p1-8:512 blocked for more than 122 seconds.",
       {{"command", "jbd2/nvme0n1p1-8"}, {"pid", "512"}, {"seconds", "122"}}},
      {"oom_kill",
       "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-abc,mems_allowed=0-1,oom_memcg=/kubepods/"
       "burstable/pod1,task_memcg=/kubepods/burstable/pod1/c1,task=python3,pid=4242,uid=0",
       {{"cgroup", "/kubepods/burstable/pod1/c1"}, {"command", "python3"}, {"pid", "4242"}}},
      {"oom_kill",
       "Memory cgroup out of memory: Killed process 4242 (python3) total-vm:98765432kB, anon-rss:81234567kB, "
       "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:170000kB oom_score_adj:-997",
       {{"pid", "4242"}, {"command", "python3"}}},
      {"oom_kill",
       "Out of memory: Killed process 917 (pt_main_thread) total-vm:1234kB, anon-rss:1000kB, file-rss:0kB",
       {{"pid", "917"}, {"command", "pt_main_thread"}}},
      {"oom_kill",
       "Out of memory: Kill process 917 (python) score 912 or sacrifice child",
       {{"pid", "917"}, {"command", "python"}}},
      {"ib_link",
       "mlx5_core 0000:5e:00.0 enp94s0f0np0: Link down",
       {{"pci", "0000:5e:00.0"}, {"iface", "enp94s0f0np0"}, {"state", "down"}}},
      {"ib_link", "mlx5_core 0000:5e:00.0 ib0: Link up", {{"pci", "0000:5e:00.0"}, {"iface", "ib0"}, {"state", "up"}}},
      {"ib_link",
       "mlx5_core 0000:5e:00.0: mlx5_port_module_event:1150:(pid 0): Port module event[error]: module 0, Cable "
       "error, Bus stuck (I2C or data shorted)",
       {{"pci", "0000:5e:00.0"}, {"state", "error"}}},
      {"ib_link", "ib0: lost carrier", {{"iface", "ib0"}}},
      {"hung_task",
       "INFO: task python3:4242 blocked for more than 120 seconds.",
       {{"command", "python3"}, {"pid", "4242"}, {"seconds", "120"}}},
      {"hung_task",
       "INFO: task kworker/u256:3:917 blocked for more than 245 seconds.",
       {{"command", "kworker/u256:3"}, {"pid", "917"}, {"seconds", "245"}}},
  };
}

inline std::vector<std::string> pack_negatives() {
  return {
      "step 1200: loss 2.3451, grad norm 0.87, lr 3.0e-04",
      "Epoch 3 | Loss: 0.0123 | took 1.2 ms (1200000 nanoseconds)",
      "loss_scale: 65536.0, overflow: False",
      "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768",
      "Running inference on 8 GPUs, info: loss information logged",
      "torch.cuda.memory_allocated: 71.2 GiB of 79.1 GiB",
      "Setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to reduce out-of-memory fragmentation",
      "Saving checkpoint to /ckpt/step_1000",
      "Saved checkpoint in 3.2 s (checkpoint save took 3.2s)",
      "quota: 80% of 10 TiB used on /scratch",
      "df: /scratch: 12% used, 2.1 TiB free",
      "node7:2211:2211 [0] NCCL INFO Channel 00/02 : 0 1 2 3 4 5 6 7",
      "NCCL version 2.20.5+cuda12.4",
      "[I ProcessGroupNCCL.cpp:686] [Rank 0] ProcessGroupNCCL initialization options: NCCL_TIMEOUT: 1800000",
      "setting NCCL_ASYNC_ERROR_HANDLING=1, timeout=1800s",
      "[c10d] Rank 0 is connected to 7 peer ranks.",
      "requests.exceptions.ConnectionError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by "
      "peer'))",
      "grpc status = StatusCode.OK",
      "  File \"/opt/train.py\", line 12, in <module>",
      "failed (exitcode: 1) local_rank: 0 (pid: 1234) of binary: /usr/bin/python3",
      "Killed 3 stale workers",
      "SIGTERM handler installed",
      "checkpoint saved successfully: /ckpt/step_2000/model.safetensors",
      "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024",
      "NVRM: GPU at PCI:0000:3b:00: GPU-b850f46d-d5ea-c752-ddf3-c4453e44d3f7",
      "NVRM: Xid (PCI:0000:3b:00 truncated",
      "nvidia-nvswitch0: SXid not supported",
      "pcieport 0000:00:01.0: AER: enabled with IRQ 24",
      "pcieport 0000:00:01.0: AER: Corrected error message received from 0000:3b:00.0",
      "nvidia 0000:3b:00.0:   device [10de:2330] error status/mask=00000001/0000e000",
      "oom_reaper: reaped process 4242 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
      "python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
      "mlx5_core 0000:5e:00.0: firmware version: 28.39.1002",
      "mlx5_core 0000:5e:00.0 ib0: Link speed 400000 Mb/s",
      "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
      "task python3:4242 state:D stack:0 pid:4242 ppid:1 flags:0x00004002",
      "",
      std::string("\x00\xff\xfe garbage \x80\x81", 17),
  };
}

}  // namespace llmon::logwatch::testing
