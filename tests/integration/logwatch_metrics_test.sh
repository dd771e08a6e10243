#!/usr/bin/env bash
# Log-derived metrics end to end: `llmon agent` with its built-in packs tails
# a training log; Megatron-LM, DeepSpeed and HF Trainer progress lines
# appended to it become stored series (train_loss, the
# train_step_duration_seconds histogram, train_samples_total, ...) that
# /api/v1/query answers, histogram_quantile() and the built-in training rule
# pack's recording rules included; a NaN loss is a NaN sample that
# TrainingLossNaN sees; binary garbage and a value that is not a number are counted and do
# not stop the watcher; a rule file of one's own with a bad metric is
# refused with its file:line:col while the agent runs with the rest.
# Usage: logwatch_metrics_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL/PORT/PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"

mkdir -p "$SCRATCH/logs"
LOG="$SCRATCH/logs/train.log"
: >"$LOG"
# A rule file whose metric reads a group its pattern lacks: refused, logged.
cat >"$SCRATCH/bad.yml" <<'EOF'
rules:
  - name: mine
    regex: 'v=(?P<v>\S+)'
    metrics:
      - {name: my_value, type: gauge, value: w}
EOF
start_llmon --collector.disable-defaults --collector.time --collect.interval=1s --rules.evaluation-interval=1s \
  --logwatch.path="$SCRATCH/logs/*.log" --logwatch.rules="$SCRATCH/bad.yml" --log.level=info
URL="$llmon_URL"

# query EXPR -> "label=value" of each result series (LABEL the first argument), sorted; "" when none.
query() {
  curl -s --max-time 5 "$URL/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["status"] == "success", d
print(" ".join(sorted("%s=%s" % (s["metric"].get(sys.argv[1], ""), s["value"][1]) for s in d["data"]["result"])))' "$2"
}
query_is() { [[ "$(query "$1" "$2")" == "$3" ]]; }
# shellcheck disable=SC2053  # $3 is a glob
query_like() { [[ "$(query "$1" "$2")" == $3 ]]; }

grep -qF "bad.yml:5:9: metric my_value: value" "$SCRATCH/llmon.log" ||
  fail "the bad rule file is not logged with its position: $(grep -i bad.yml "$SCRATCH/llmon.log")"

# 1. Megatron-LM: three intervals (1.5 s, 1.25 s, 1.25 s per iteration; losses 7, 6, 5).
MS=(1500.0 1250.0 1250.0)
LOSS=(7.000000E+00 6.000000E+00 5.000000E+00)
for i in 0 1 2; do
  printf ' [2025-11-28 18:48:%02d] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %s | throughput per GPU (TFLOP/s/GPU): 401.2 | learning rate: 3.000000E-04 | global batch size:  1024 | lm loss: %s | loss scale: 1.0 | grad norm: 1.234 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
    $((10 * i)) $((10 * i + 10)) 5000 $((10240 * i + 10240)) "${MS[i]}" "${LOSS[i]}" >>"$LOG"
done
wait_for "Megatron's step-time histogram" 30 query_is 'train_step_duration_seconds_count{framework="megatron"}' framework "megatron=3"
query_is 'train_loss{framework="megatron"}' job "llmon=5" || fail "Megatron loss: $(query 'train_loss{framework="megatron"}' job)"
query_is 'train_samples_total{framework="megatron"}' source "$LOG=30720" ||
  fail "consumed samples: $(query 'train_samples_total' source)"
query_is 'train_step_duration_seconds_sum{framework="megatron"}' framework "megatron=4" ||
  fail "step-time sum: $(query 'train_step_duration_seconds_sum' framework)"
# 1.5, 1.25 and 1.25 s: the median is in the (1, 2.5] bucket, 1 + 1.5 * (1.5/3) = 1.75.
query_is 'histogram_quantile(0.5, sum by (le) (train_step_duration_seconds_bucket{framework="megatron"}))' "" "=1.75" ||
  fail "histogram_quantile: $(query 'histogram_quantile(0.5, sum by (le) (train_step_duration_seconds_bucket))' "")"

# The built-in training pack's recording rule on the log-derived histogram:
# one more 1.25 s interval, so the rate over 10 minutes is that observation.
sleep 2
printf ' [2025-11-28 18:49:00] iteration       40/    5000 | consumed samples:        40960 | elapsed time per iteration (ms): 1250.0 | learning rate: 3.000000E-04 | global batch size:  1024 | lm loss: 4.000000E+00 | loss scale: 1.0 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' >>"$LOG"
wait_for "llm:train_step_duration_seconds:p50_10m" 30 query_is 'llm:train_step_duration_seconds:p50_10m{framework="megatron"}' framework "megatron=1.75"
wait_for "llm:train_samples:rate5m" 30 query_like 'llm:train_samples:rate5m{framework="megatron"} > 0' framework "megatron=*"
# 2. DeepSpeed (pipeline engine and engine lines) and the HF Trainer.
cat >>"$LOG" <<'EOF'
[2024-05-01 12:00:00,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=100, skipped=2, lr=[0.0001, 0.0001], mom=[(0.9, 0.999), (0.9, 0.999)]
steps: 100 loss: 2.3456 iter time (s): 0.412 samples/sec: 103.723
{'loss': 1.2345, 'grad_norm': 0.5123, 'learning_rate': 2e-05, 'epoch': 0.5, 'num_input_tokens_seen': 524288}
EOF
wait_for "the HF Trainer's loss" 30 query_is 'train_loss{framework="transformers"}' framework "transformers=1.2345"
query_is 'train_loss' framework "deepspeed=2.3456 megatron=4 transformers=1.2345" ||
  fail "losses: $(query train_loss framework)"
query_is 'train_step_duration_seconds_count' framework "deepspeed=1 megatron=4" ||
  fail "step counts: $(query train_step_duration_seconds_count framework)"
query_is 'train_tokens_total' framework "transformers=524288" || fail "tokens: $(query train_tokens_total framework)"
query_is 'train_skipped_iterations_total' framework "deepspeed=2 megatron=0" || fail "skipped: $(query train_skipped_iterations_total framework)"
query_is 'train_learning_rate{framework="deepspeed"}' framework "deepspeed=0.0001" || fail "lr"

# 3. Garbage, a value that is not a number, then a NaN loss: counted, skipped, read on.
{
  head -c 4096 /dev/urandom
  printf '\nsteps: 200 loss: two iter time (s): 0.5 samples/sec: 99.0\n'
  printf 'iteration 9/9 | elapsed time per iteration (ms): \xff\xfe | lm loss: 1.0 |\n'
  printf "{'loss': nan, 'grad_norm': nan, 'learning_rate': 1.8e-05, 'epoch': 0.6}\n"
} >>"$LOG"
wait_for "the NaN loss" 30 query_is 'train_loss{framework="transformers"} != train_loss{framework="transformers"}' framework "transformers=NaN"
# The built-in TrainingLossNaN alert sees it (pending: it has `for: 1m`).
wait_for "TrainingLossNaN pending" 30 bash -c "curl -s '$URL/api/v1/alerts' | python3 -c '
import json, sys
a = json.load(sys.stdin)[\"data\"][\"alerts\"]
sys.exit(0 if any(x[\"labels\"][\"alertname\"] == \"TrainingLossNaN\" and x[\"labels\"].get(\"framework\") == \"transformers\" for x in a) else 1)'"
query_is 'llmon_log_metric_parse_errors_total{rule=~"deepspeed_pipe_steps|megatron_iteration"}' rule \
  "deepspeed_pipe_steps=1 megatron_iteration=1" || fail "parse errors: $(query llmon_log_metric_parse_errors_total rule)"
query_is 'train_loss{framework=~"deepspeed|megatron"}' framework "deepspeed=2.3456 megatron=4" ||
  fail "a bad line was half-read: $(query train_loss framework)"
query_is 'train_step_duration_seconds_count' framework "deepspeed=1 megatron=4" ||
  fail "a bad line was observed: $(query train_step_duration_seconds_count framework)"
# The watcher still reads, and the packs' events still come (the NaN line is not one: HF's shape).
printf 'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)\n' >>"$LOG"
wait_for "an event after the garbage" 30 bash -c "curl -s '$URL/api/v1/events?rule=cuda_oom' | grep -q cuda_oom"
log "log-derived metrics end to end: Megatron, DeepSpeed, HF Trainer, histogram_quantile, the training rule pack, NaN, garbage"
