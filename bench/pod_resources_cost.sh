#!/usr/bin/env bash
# shellcheck disable=SC2154  # pods_URL, ne_PID, ...: set by bench/lib.sh's start
# What asking the kubelet's pod-resources API every cycle costs the agent
# (docs/performance.md "Kubernetes pod attribution"). Three processes started
# together, same host (the fake 8x H100 NVML, tests/fixtures/gpu_host's /proc):
#   pods      llmon agent, gpu only, --collector.gpu.pod-resources-socket at gRPC's
#             Python server (tests/tools/pod_resources_server.py, 3 pods), a List
#             call every 1 s cycle
#   no_pods   the same agent with --collector.gpu.pod-resources-socket= (never asks)
#   node_exporter  the peer the agent's RSS is measured against, default collectors
# After WARM_S: VmRSS and VmHWM; then CPU over CPU_S from each process's CPU-time
# clock (clock_getcpuclockid: ns, every thread; utime+stime ticks are 10 ms). The Python
# server's CPU is reported but is the kubelet's cost, not ours. Needs python3-grpcio,
# python3-protobuf, python3-grpc-tools and prometheus-node-exporter.
# Usage: bench/pod_resources_cost.sh      Env: BUILD, LLMON, WARM_S (20), CPU_S (30)
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
BUILD="${BUILD:-$REPO/build}"
LLMON="${LLMON:-$BUILD/llmon}"
FAKE="$BUILD/fake_nvml/libnvidia-ml.so.1"
WARM_S="${WARM_S:-20}"; CPU_S="${CPU_S:-30}"
NE="$(command -v prometheus-node-exporter || command -v node_exporter)"
SCRATCH="$(mktemp -d /tmp/llmon-pod-resources-cost.XXXXXX)"
HOST="$REPO/tests/fixtures/gpu_host"
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/h100x8.json"

cat >"$SCRATCH/pods.json" <<'JSON'
[{"name": "llama-train-0", "namespace": "research", "containers": [{"name": "trainer", "devices": [
   {"resource_name": "nvidia.com/gpu", "device_ids": ["GPU-4f6c2a1e-9b3d-7e85-0c14-a2d8f61b93e7", "GPU-b81d05c3-2e7a-4f69-d3a0-5c9e17b4826f"]}]}]},
 {"name": "idle-notebook", "namespace": "team-a", "containers": [{"name": "jupyter", "devices": [
   {"resource_name": "nvidia.com/gpu", "device_ids": ["GPU-7a25c8e1-d439-0b6f-e812-39c4a7d05f1b"]}]}]},
 {"name": "coredns", "namespace": "kube-system", "containers": [{"name": "coredns"}]}]
JSON
SOCK="$SCRATCH/kubelet.sock"
start_bg "$SCRATCH/server.log" /usr/bin/python3 "$REPO/tests/tools/pod_resources_server.py" "$SOCK" "$SCRATCH/pods.json" \
  --ready "$SCRATCH/server.ready"
SERVER_PID=$LAST_PID
for ((i = 0; i < 150; i++)); do [[ -f "$SCRATCH/server.ready" ]] && break; sleep 0.1; done
[[ -S "$SOCK" ]] || { log "the gRPC server did not start"; exit 1; }
COMMON=(agent --collector.disable-defaults --collector.gpu --nvml.library="$FAKE" --path.procfs="$HOST/proc"
  --path.rootfs="$HOST/rootfs" --collector.gpu.hostname=node1 --no-storage.enabled --logwatch.kmsg-path=
  --web.listen-address=127.0.0.1:@PORT@)
start pods /-/ready "$LLMON" "${COMMON[@]}" --collector.gpu.pod-resources-socket="$SOCK"
start no_pods /-/ready "$LLMON" "${COMMON[@]}" --collector.gpu.pod-resources-socket=
start ne /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@
sleep "$WARM_S"
# One scrape of each (the page cache is part of RSS: scrape both agents alike).
grep -q 'pod="idle-notebook"' <(curl -s "$pods_URL/metrics") || { log "no attribution on the pods agent"; exit 1; }
curl -s -o /dev/null "$no_pods_URL/metrics"
curl -s -o /dev/null "$ne_URL/metrics"
cpu_ns() { python3 -c 'import sys, time; print(time.clock_gettime_ns(((~int(sys.argv[1])) << 3) | 2))' "$1"; }
declare -A T0 R H A F
for n in pods no_pods ne; do
  pid_var="${n}_PID"; p="${!pid_var}"
  T0[$n]="$(cpu_ns "$p")"; R[$n]="$(mem_kb "$p" VmRSS)"; H[$n]="$(mem_kb "$p" VmHWM)"; A[$n]="$(mem_kb "$p" RssAnon)"; F[$n]="$(mem_kb "$p" RssFile)"
done
S0="$(cpu_ns "$SERVER_PID")"
sleep "$CPU_S"
printf '%-8s %10s %10s %10s %10s %12s %10s\n' process "VmRSS kB" "RssAnon" "RssFile" "VmHWM kB" "CPU ms/s" "%core"
for n in pods no_pods ne; do
  pid_var="${n}_PID"; p="${!pid_var}"
  t1="$(cpu_ns "$p")"
  awk -v n="$n" -v r="${R[$n]}" -v a="${A[$n]}" -v f="${F[$n]}" -v h="${H[$n]}" -v t0="${T0[$n]}" -v t1="$t1" -v s="$CPU_S" \
    'BEGIN { ms = (t1 - t0) / 1e6 / s; printf "%-8s %10d %10d %10d %10d %12.3f %10.4f\n", n, r, a, f, h, ms, ms / 10 }'
done
awk -v t0="$S0" -v t1="$(cpu_ns "$SERVER_PID")" -v s="$CPU_S" \
  'BEGIN { printf "(the gRPC server, the kubelet stand-in: %.2f CPU ms/s)\n", (t1 - t0) / 1e6 / s }'
awk -v a="${R[pods]}" -v b="${R[no_pods]}" -v ne="${R[ne]}" \
  'BEGIN { printf "RSS: pods - no_pods = %+d kB; pods / node_exporter = %.3f; no_pods / node_exporter = %.3f\n", a - b, a / ne, b / ne }'
log "raw logs in $SCRATCH"
