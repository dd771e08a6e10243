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
      // training_metrics.yml (event: false; progress lines of Megatron-LM, DeepSpeed, the HF Trainer)
      {"megatron_iteration",
       " [2025-11-28 18:48:17] iteration       50/    5000 | consumed samples:        51200 | elapsed time per "
       "iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 401.2 | learning rate: 2.999990E-04 | global "
       "batch size:  1024 | lm loss: 6.681113E+00 | loss scale: 1.0 | grad norm: 1.234 | number of skipped "
       "iterations:   0 | number of nan iterations:   0 |",
       {{"iteration", "50"},
        {"samples", "51200"},
        {"step_ms", "1234.5"},
        {"tflops", "401.2"},
        {"lr", "2.999990E-04"},
        {"loss", "6.681113E+00"},
        {"grad_norm", "1.234"},
        {"skipped", "0"},
        {"nan", "0"}}},
      {"megatron_iteration",  // Megatron-DeepSpeed: consumed tokens, no timestamp, fields of its own
       " iteration      199/  317892 | consumed samples:       152832 | consumed tokens:    625999872 | elapsed "
       "time per iteration (ms): 14287.5 | learning rate: 2.407E-04 | global batch size:   768 | lm loss: "
       "5.905366E+00 | loss scale: 8192.0 | actual seqlen:  4096 | number of skipped iterations:   0 | number of "
       "nan iterations:   0 | samples per second: 53.753 | tokens per gpu per second (tgs): 1146.731 | TFLOPs: "
       "98.21 |",
       {{"iteration", "199"},
        {"samples", "152832"},
        {"tokens", "625999872"},
        {"step_ms", "14287.5"},
        {"lr", "2.407E-04"},
        {"loss", "5.905366E+00"},
        {"skipped", "0"},
        {"nan", "0"}}},
      {"megatron_iteration",  // a skipped (overflowed) interval: no lm loss, no grad norm
       " [2025-11-28 19:02:03] iteration      120/    5000 | consumed samples:       122880 | elapsed time per "
       "iteration (ms): 987.0 | memory(GiB): 61.2 | elapsed time: 0:01:58 | remaining time: 1:20:11 | learning "
       "rate: 3.000000E-04 | global batch size:  1024 | loss scale: 32768.0 | number of skipped iterations:   1 | "
       "number of nan iterations:   1 |",
       {{"iteration", "120"},
        {"samples", "122880"},
        {"step_ms", "987.0"},
        {"lr", "3.000000E-04"},
        {"skipped", "1"},
        {"nan", "1"}}},
      {"deepspeed_pipe_steps",
       "steps: 100 loss: 2.3456 iter time (s): 1.234 samples/sec: 103.723",
       {{"iteration", "100"}, {"loss", "2.3456"}, {"step_s", "1.234"}, {"samples_per_second", "103.723"}}},
      {"deepspeed_pipe_steps",
       "[2024-05-01 12:00:05,456] [INFO] [engine.py:590:_aggregate_total_loss] steps: 200 loss: 2.1021 iter time "
       "(s): 0.987 samples/sec: 129.686",
       {{"iteration", "200"}, {"loss", "2.1021"}, {"step_s", "0.987"}, {"samples_per_second", "129.686"}}},
      {"deepspeed_pipe_steps",
       "step:   300 /  1000 loss: 1.9876 aux_loss: 0.0123 iter time (s): 1.010 samples/sec: 126.733 eta: 0:11:47 ",
       {{"iteration", "300"}, {"loss", "1.9876"}, {"step_s", "1.010"}, {"samples_per_second", "126.733"}}},
      {"deepspeed_step_lr",
       "[2024-05-01 12:00:00,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=100, skipped=0, lr=[0.0001, "
       "0.0001], mom=[(0.9, 0.999), (0.9, 0.999)]",
       {{"iteration", "100"}, {"skipped", "0"}, {"lr", "0.0001"}}},
      {"deepspeed_step_lr",
       "[2023-11-07 01:55:23,711] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=4, "
       "lr=[4.99804827338393e-05, 4.99804827338393e-05], mom=[(0.9, 0.95), (0.9, 0.95)]",
       {{"iteration", "10"}, {"skipped", "4"}, {"lr", "4.99804827338393e-05"}}},
      {"deepspeed_step_lr",
       "[2022-08-29 06:58:56,121] [INFO] [logging.py:68:log_dist] [Rank 0] step=20, skipped=17, lr=[5e-05], "
       "mom=[(0.9, 0.999)]",
       {{"iteration", "20"}, {"skipped", "17"}, {"lr", "5e-05"}}},
      {"deepspeed_throughput",
       "[2023-11-07 01:55:23,714] [INFO] [timer.py:260:stop] epoch=0/micro_step=40/global_step=10, "
       "RunningAvgSamplesPerSec=25.025771473496132, CurrSamplesPerSec=25.704280480541442, MemAllocated=4.32GB, "
       "MaxMemAllocated=38.49GB",
       {{"samples_per_second", "25.704280480541442"}}},
      {"deepspeed_throughput",
       "[2022-08-29 06:58:56,176] [INFO] [timer.py:198:stop] 0/20, RunningAvgSamplesPerSec=232.7340551694273, "
       "CurrSamplesPerSec=227.48090316379353, MemAllocated=0.36GB, MaxMemAllocated=15.06GB",
       {{"samples_per_second", "227.48090316379353"}}},
      {"deepspeed_throughput",
       "[2023-08-02 00:41:17,936] [INFO] [timer.py:215:stop] epoch=0/micro_step=10/global_step=10, "
       "RunningAvgSamplesPerSec=220.69530887096045, CurrSamplesPerSec=222.88787331278564, MemAllocated=0.07GB, "
       "MaxMemAllocated=1.36GB",
       {{"samples_per_second", "222.88787331278564"}}},
      {"hf_trainer_log",
       "{'loss': 1.2345, 'grad_norm': 0.5123, 'learning_rate': 2e-05, 'epoch': 0.5}",
       {{"loss", "1.2345"}, {"grad_norm", "0.5123"}, {"lr", "2e-05"}, {"epoch", "0.5"}}},
      {"hf_trainer_log",  // before 4.38: no grad_norm; after a tqdm bar
       " 10%|#         | 100/1000 [01:00<09:00,  1.67it/s]{'loss': 2.0813, 'learning_rate': 4.9e-05, 'epoch': 0.02}",
       {{"loss", "2.0813"}, {"lr", "4.9e-05"}, {"epoch", "0.02"}}},
      {"hf_trainer_log",  // TRL's keys in between, include_num_input_tokens_seen
       "{'loss': 0.6931, 'grad_norm': 1.8765432, 'learning_rate': 1.8e-05, 'num_tokens': 524288.0, "
       "'mean_token_accuracy': 0.81, 'epoch': 0.62, 'num_input_tokens_seen': 1048576}",
       {{"loss", "0.6931"}, {"grad_norm", "1.8765432"}, {"lr", "1.8e-05"}, {"epoch", "0.62"}, {"tokens", "1048576"}}},
      {"hf_trainer_log",
       "{'loss': nan, 'grad_norm': nan, 'learning_rate': 1.7e-05, 'epoch': 0.64}",
       {{"loss", "nan"}, {"grad_norm", "nan"}, {"lr", "1.7e-05"}, {"epoch", "0.64"}}},
      {"hf_trainer_summary",
       "{'train_runtime': 1234.5678, 'train_samples_per_second': 45.6, 'train_steps_per_second': 1.2, "
       "'train_loss': 1.5, 'epoch': 3.0}",
       {{"samples_per_second", "45.6"}}},
      {"hf_trainer_summary",
       "{'train_runtime': 88.0412, 'train_samples_per_second': 340.75, 'train_steps_per_second': 42.594, "
       "'total_flos': 1234567890.0, 'train_loss': 0.4567, 'epoch': 1.0}",
       {{"samples_per_second", "340.75"}}},
      {"hf_trainer_summary",
       "{'train_runtime': 3600.1, 'train_samples_per_second': 8.021, 'train_steps_per_second': 0.334, "
       "'train_loss': 2.8478, 'epoch': 2.24}",
       {{"samples_per_second", "8.021"}}},
  };
}

inline std::vector<std::string> pack_negatives() {
  return {
      "iteration       50/    5000 | lm loss: 6.681113E+00 | loss scale: 1.0 |",
      "{'eval_loss': 1.1, 'eval_runtime': 2.0, 'eval_samples_per_second': 25.0, 'epoch': 1.0}",
      "[Rank 0] step=100 finished",
      "steps: 100 loss: 2.3456",
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
