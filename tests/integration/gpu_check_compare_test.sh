#!/usr/bin/env bash
# scripts/gpu-check.sh without a GPU. --compare on hand-written llmon
# snapshot JSON and nvidia-smi CSV (tests/fixtures/gpu_check/): all agree ->
# exit 0; one field off -> exit 1 with its DIFFER line; a value inside the
# range of two nvidia-smi samples agrees, outside one sample it does not; an
# extra compute-app pid differs; a malformed CSV is an error (2). Live mode
# with a stand-in nvidia-smi: none installed or no GPU -> 77; llmon seeing no
# GPU -> 1; and, when the fake libnvidia-ml.so.1 is built next to llmon, the
# whole run (snapshot, old-nvidia-smi field fallback, timing, agent NVML call
# count) against one_h100_scenario.json -> 0.
# Usage: gpu_check_compare_test.sh <path-to-llmon-binary>
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"

CHECK="$REPO/scripts/gpu-check.sh"
FIX="$REPO/tests/fixtures/gpu_check"
out="$SCRATCH/out.txt"
err="$SCRATCH/err.txt"

# run EXPECTED_RC ARGS...: runs gpu-check.sh (bounded), fails on another exit code.
run() {
  local want="$1" rc
  shift
  timeout 120 bash "$CHECK" "$@" >"$out" 2>"$err"
  rc=$?
  [[ $rc -eq $want ]] || fail "gpu-check.sh $* exited $rc, expected $want; stdout: $(cat "$out"); stderr: $(cat "$err")"
}
expect_line() {
  grep -Eq "$1" "$out" || fail "no line matching /$1/ in: $(cat "$out")"
}
expect_no_line() {
  if grep -Eq "$1" "$out"; then fail "unexpected line matching /$1/ in: $(cat "$out")"; fi
}

# --- comparison only -------------------------------------------------------
run 0 --compare "$FIX/snapshot.json" "$FIX/smi_gpu_agree.csv" "$FIX/smi_apps.csv"
expect_line '^41 fields agree, 0 differ, 3 not comparable'
expect_no_line 'DIFFER'
# GPU 1 has a memory temperature only in nvidia-smi's answer.
expect_line '^1 +temperature\.memory \[C\] +- +31 .*n/a \(llmon missing\)$'
# The AMD GPU in the snapshot is not nvidia-smi's business.
expect_no_line 'MI300X|0x5f2e5d1a8b2c3d4e'

run 1 --compare "$FIX/snapshot.json" "$FIX/smi_gpu_differ.csv" "$FIX/smi_apps.csv"
expect_line '^0 +temperature\.gpu \[C\] +61 +70 +-9\.00 +±2 +DIFFER$'
expect_line '^40 fields agree, 1 differ, 3 not comparable'
[[ "$(grep -c DIFFER "$out")" -eq 1 ]] || fail "expected exactly one DIFFER line: $(cat "$out")"

# Utilisation 97 lies between the samples 80 and 100 (20-column CSV: no
# enforced.power.limit, so power.limit is compared), but not within 10 of 80.
run 0 --compare "$FIX/snapshot.json" "$FIX/smi_gpu_before.csv" "$FIX/smi_apps.csv" \
  "$FIX/smi_gpu_after.csv" "$FIX/smi_apps.csv"
expect_line '^0 +utilization\.gpu +97 +80\.\.100 .*agree$'
expect_line '^0 +power\.limit \[W\] +700 +700 .*agree$'
run 1 --compare "$FIX/snapshot.json" "$FIX/smi_gpu_before.csv" "$FIX/smi_apps.csv"
expect_line '^0 +utilization\.gpu +97 +80 +\+17\.00 +±10 +DIFFER$'

run 1 --compare "$FIX/snapshot.json" "$FIX/smi_gpu_agree.csv" "$FIX/smi_apps_extra.csv"
expect_line '^0 +compute-apps pids +4101 +4101,4242 .*DIFFER$'

printf '0, GPU-x, name, 00000000:18:00.0, 95\n' >"$SCRATCH/short.csv"
run 2 --compare "$FIX/snapshot.json" "$SCRATCH/short.csv" "$FIX/smi_apps.csv"
grep -q 'short.csv:1: 5 columns' "$err" || fail "malformed CSV: unexpected message: $(cat "$err")"
run 2 --compare "$FIX/snapshot.json" "$FIX/smi_gpu_agree.csv"

# --- live mode, with a stand-in nvidia-smi ---------------------------------
{ cp "$FIX/nvidia-smi" "$SCRATCH/nvidia-smi" && chmod +x "$SCRATCH/nvidia-smi"; } || fail "cannot copy the nvidia-smi stub"
export STUB_SMI_DATA="$FIX/nvidia_smi_stub.json" GPU_CHECK_RUNS=1 GPU_CHECK_AGENT_SECONDS=2

NVIDIA_SMI="$SCRATCH/no-such-nvidia-smi" run 77 "$LLMON"
grep -q 'SKIP' "$err" || fail "no SKIP message: $(cat "$err")"
STUB_SMI_NO_GPU=1 NVIDIA_SMI="$SCRATCH/nvidia-smi" run 77 "$LLMON"

# llmon without NVML sees no GPU where nvidia-smi sees one.
NVIDIA_SMI="$SCRATCH/nvidia-smi" GPU_CHECK_LLMON_FLAGS="--nvml.library=$SCRATCH/none/libnvidia-ml.so.1" \
  GPU_CHECK_AGENT_SECONDS=0 run 1 "$LLMON"
expect_line '^0 +gpu GPU-4f6c2a1e-9b3d-7e85-0c14-a2d8f61b93e7 +absent +present .*DIFFER$'

fake="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
if [[ -f "$fake" ]]; then
  export LLMON_FAKE_NVML_SCENARIO="$FIX/one_h100_scenario.json"
  NVIDIA_SMI="$SCRATCH/nvidia-smi" GPU_CHECK_LLMON_FLAGS="--nvml.library=$fake" run 0 "$LLMON"
  expect_line '^21 fields agree, 0 differ, 1 not comparable'
  expect_line '^0 +clocks_event_reasons\.active +sw_power_cap +sw_power_cap .*agree$'
  expect_line '^0 +pid 4101 used_memory \[MiB\] +70000 +70000 .*agree$'
  expect_line 'llmon snapshot --json: [0-9.]+ s wall'
  expect_line 'NVML calls in .* per GPU per cycle \(1 GPUs'
  # An nvidia-smi from before driver 535: fields probed one by one, the
  # throttle-reasons alias used, unknown fields not comparable.
  STUB_SMI_OLD=1 NVIDIA_SMI="$SCRATCH/nvidia-smi" GPU_CHECK_LLMON_FLAGS="--nvml.library=$fake" \
    GPU_CHECK_RUNS=0 GPU_CHECK_AGENT_SECONDS=0 run 0 "$LLMON"
  grep -q 'does not know --query-gpu=memory.reserved' "$err" || fail "no fallback message: $(cat "$err")"
  expect_line '^0 +memory\.reserved \[MiB\] +527 +- .*n/a$'
  expect_line '^0 +clocks_event_reasons\.active +sw_power_cap +sw_power_cap .*agree$'
  expect_line '^19 fields agree, 0 differ, 3 not comparable'
else
  log "no fake NVML at $fake (target fake_nvml not built): live run against it not tested"
fi
log "ok"
