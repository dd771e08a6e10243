#!/usr/bin/env bash
# Faults through the fake libnvidia-ml (tests/fake_nvml/scenarios/faults.json):
#  - GPU 1 is lost (GPU_IS_LOST) at ticks 3-5: its series go away, llmon_gpu_up
#    turns 0, and it comes back under the same labels;
#  - nvmlDeviceGetPowerUsage hangs 3 s at tick 4: the cycle gives up after
#    --collector.gpu.timeout (1 s here), later cycles answer at once while the
#    call is stuck, and sampling resumes when it returns;
#  - garbage from the driver (utilisation 250 %, 101 %, a temperature of
#    4294967295, a GPM tensor activity of 250 %) never reaches /metrics;
#  - NO_PERMISSION on remapped rows and an UNKNOWN error on one call lose only
#    those values; a process without a memory figure keeps its other series;
#  - 32-bit PCIe byte counters that wrap are unfolded into a monotonic counter;
#  - the driver's recovery action (field 230) is exported every cycle.
# The agent keeps serving throughout and exits cleanly.
# Usage: gpu_faults_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
require_cmd curl || skip "curl not installed"

FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"
HOST="$REPO/tests/fixtures/gpu_host"
export LLMON_FAKE_NVML_SCENARIO="$REPO/tests/fake_nvml/scenarios/faults.json"
export LLMON_FAKE_NVML_CALL_LOG="$SCRATCH/calls.txt"

start_llmon --collector.disable-defaults --collector.gpu --nvml.library="$FAKE" --collector.gpu.timeout=1s \
  --path.procfs="$HOST/proc" --path.rootfs="$HOST/rootfs" --collector.gpu.hostname=node1

# Scrape every 0.3 s for 11 s (ticks 0..~10), keeping every page and how long
# each scrape took.
mkdir -p "$SCRATCH/pages"
for ((i = 0; i < 37; i++)); do
  t0=$(date +%s%N)
  curl -s --max-time 5 -o "$SCRATCH/pages/$(printf %03d "$i").prom" "$llmon_URL/metrics" || fail "scrape $i failed"
  t1=$(date +%s%N)
  echo "$(((t1 - t0) / 1000000))" >>"$SCRATCH/scrape_ms.txt"
  sleep 0.3
done
curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$llmon_URL/-/healthy" | grep -q 200 || fail "agent not healthy after the faults"
stop_pid "$llmon_PID"
grep -q 'level=info msg=stopped' "$SCRATCH/llmon.log" || fail "agent did not stop cleanly: $(tail -n 5 "$SCRATCH/llmon.log")"

python3 - "$SCRATCH/pages" "$SCRATCH/scrape_ms.txt" <<'PY' || fail "fault checks failed (see above)"
import glob, re, sys
LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{.*\})? (\S+)$')
pages = []
for p in sorted(glob.glob(sys.argv[1] + "/*.prom")):
    s = {}
    for line in open(p):
        m = LINE.match(line.strip())
        if m:
            s[(m.group(1), m.group(2) or "")] = float(m.group(3))
    pages.append(s)
errors = []
def find(page, name, *must):
    return [(k[1], v) for k, v in page.items() if k[0] == name and all(x in k[1] for x in must)]

uuid1 = 'UUID="GPU-19a7c3e5-40f2-d816-b7e9-c58d2a04f1b6"'
ups = [find(p, "llmon_gpu_up", 'gpu="1"') for p in pages]
states = [u[0][1] if u else None for u in ups]
if 0.0 not in states:
    errors.append(f"GPU 1 never reported lost: llmon_gpu_up states {states}")
else:
    first_lost = states.index(0.0)
    if 1.0 not in states[first_lost:]:
        errors.append(f"GPU 1 did not come back: {states}")
    labels_before = [u[0][0] for u in ups if u and u[0][1] == 1.0]
    if len(set(labels_before)) != 1 or uuid1 not in labels_before[0]:
        errors.append(f"GPU 1 came back under other labels: {set(labels_before)}")
    for p, st in zip(pages, states):
        if st == 0.0 and find(p, "DCGM_FI_DEV_GPU_UTIL", 'gpu="1"'):
            errors.append("a lost GPU still has DCGM_FI_DEV_GPU_UTIL")
            break

timeouts = [find(p, "llmon_gpu_sample_timeouts_total") for p in pages]
last_timeouts = timeouts[-1][0][1] if timeouts[-1] else 0
if last_timeouts < 1:
    errors.append("the 3 s hang never timed out")
succ = [p.get(("node_scrape_collector_success", '{collector="gpu"}')) for p in pages]
if 0.0 not in succ:
    errors.append(f"no failed gpu cycle during the hang: {succ}")
elif 1.0 not in succ[succ.index(0.0):]:
    errors.append(f"sampling did not resume after the hang: {succ}")
if succ[-1] != 1.0 or not find(pages[-1], "DCGM_FI_DEV_GPU_UTIL", 'gpu="0"'):
    errors.append("no fresh GPU 0 data at the end")

for p in pages:
    for name, bad in (("DCGM_FI_DEV_GPU_UTIL", lambda v: v > 100), ("DCGM_FI_DEV_GPU_TEMP", lambda v: v > 250),
                      ("DCGM_FI_DEV_MEM_COPY_UTIL", lambda v: v > 100),
                      ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", lambda v: v > 1)):
        for lab, v in find(p, name):
            if bad(v):
                errors.append(f"garbage exported: {name}{lab} {v}")
    if find(p, "DCGM_FI_DEV_MEM_COPY_UTIL", 'gpu="0"'):
        errors.append("GPU 0's mem_util of 101 % was exported")
        break
    if find(p, "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", 'gpu="0"'):
        errors.append("remapped rows exported despite NO_PERMISSION")
        break

tx = [find(p, "llmon_gpu_pcie_transmit_bytes_total", 'gpu="0"') for p in pages]
tx = [t[0][1] for t in tx if t]
if len(tx) < 5 or any(b < a for a, b in zip(tx, tx[1:])):
    errors.append(f"PCIe TX counter not monotonic across the 32-bit wrap: {tx}")
elif tx[-1] - tx[0] < 2500000 * 3 or (tx[-1] - tx[0]) % 2500000 != 0:
    errors.append(f"PCIe TX counter does not advance by whole ticks of 2500000: {tx[0]} -> {tx[-1]}")

last = pages[-1]
if find(last, "llmon_gpu_process_memory_bytes", 'pid="5301"'):
    errors.append("process 5301 has a memory value though NVML said NOT_AVAILABLE")
if not find(last, "llmon_gpu_process_sm_utilization_ratio", 'pid="5301"'):
    errors.append("process 5301 lost its utilisation series")
if not find(last, "llmon_gpu_nvml_errors_total", 'function="nvmlDeviceGetTemperature"'):
    errors.append("the UNKNOWN temperature error was not counted")
if not find(last, "llmon_gpu_nvml_errors_total", 'function="nvmlGpmMetricsGet"'):
    errors.append("the UNKNOWN nvmlGpmMetricsGet error was not counted")
xid79 = find(last, "llmon_gpu_xid_errors_total", 'gpu="1"', 'xid="79"')
if not xid79 or xid79[0][1] != 1:
    errors.append(f"GPU 1's one Xid 79 should count 1 (across its loss and return): {xid79}")
if not find(last, "DCGM_FI_PROF_SM_ACTIVE", 'gpu="0"'):
    errors.append("GPM metrics did not come back after the nvmlGpmMetricsGet error")

ms = [int(x) for x in open(sys.argv[2])]
if max(ms) > 1500:
    errors.append(f"a scrape took {max(ms)} ms: serving stalled behind NVML")
# Field 230, the driver's recovery action: GPU 0 goes 0, 0, 2, 2, 4, 0, 7, 0
# (tick 4 may be lost to the hang); GPU 1 stays 0 while present.
ra0 = [v for p in pages for _, v in find(p, "DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION", 'gpu="0"', 'UUID="GPU-')]
if not {2.0, 7.0} <= set(ra0) or not set(ra0) <= {0.0, 2.0, 4.0, 7.0}:
    errors.append(f"GPU 0's DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION should take 0, 2, 4, 7: {sorted(set(ra0))}")
ra1 = {v for p in pages for _, v in find(p, "DCGM_FI_DEV_GET_GPU_RECOVERY_ACTION", 'gpu="1"')}
if ra1 != {0.0}:
    errors.append(f"GPU 1's recovery action should be 0: {ra1}")
for e in errors:
    print("FAIL:", e)
print(f"{len(pages)} pages checked; lost states {states}; timeouts {last_timeouts}; slowest scrape {max(ms)} ms")
sys.exit(1 if errors else 0)
PY
[[ -s "$SCRATCH/calls.txt" ]] || fail "the fake wrote no call log"
log "faults survived"
