#!/usr/bin/env bash
# The dashboard's Applications view in a real browser (Debian's chromium,
# headless, playwright-core: web/browser/apps.browser.mjs). Two page servers
# (page_server.py) serve tests/fixtures/apps/vllm.prom and training.prom,
# their counters and histograms growing every second (so the LLM rule pack's
# rates and quantiles have values); the fake NVML's 8x H100 scenario lists the
# vLLM server's pid on GPUs 0 and 1 and the training job's on GPU 2. `llmon
# agent --scrape.config` scrapes both (static targets labelled with their pid)
# and a third target that answers 503. The checks compare the page with the
# API: a card per target, the vLLM card's engine, requests, KV cache and TTFT,
# its GPUs with their utilisation, the training card's loss and step time, the
# down target's last error, the overview's summary and GPU badges; and on an
# agent without targets, the help on adding them. Screenshots are kept in
# <build>/test-artifacts/dashboard-apps/.
# Usage: dashboard_apps_browser_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # *_URL, *_PID come from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"
find_browser
[[ -z "$BROWSER_MISSING" ]] || skip "$BROWSER_MISSING"
FAKE="$(dirname "$LLMON")/fake_nvml/libnvidia-ml.so.1"
[[ -f "$FAKE" ]] || fail "fake NVML not built next to $LLMON (expected $FAKE)"
ART="${LLMON_TEST_ARTIFACTS:-$(dirname "$LLMON")/test-artifacts}/dashboard-apps"
mkdir -p "$ART" "$SCRATCH/serve" "$SCRATCH/train"
cp "$REPO/tests/fixtures/apps/vllm.prom" "$SCRATCH/serve/vllm.prom"
cp "$REPO/tests/fixtures/apps/training.prom" "$SCRATCH/train/training.prom"

# Every second, each page's counters, buckets, _sum and _count grow by 0.2 %
# of the recorded value: the same distribution, so the quantiles are the
# page's, and rates above zero.
python3 - "$SCRATCH/serve/vllm.prom" "$SCRATCH/train/training.prom" >"$SCRATCH/grow.log" 2>&1 <<'PY' &
import os, re, sys, time
pages = {p: open(p).read().splitlines() for p in sys.argv[1:]}
grow = re.compile(r'^([^#\s][^ ]*(_bucket|_count|_sum|_total)(\{[^}]*\})?) (\S+)$')
i = 0
while True:
    i += 1
    for path, lines in pages.items():
        out = []
        for line in lines:
            m = grow.match(line)
            out.append(f"{m.group(1)} {float(m.group(4)) * (1 + 0.002 * i)!r}" if m and not m.group(1).startswith(("python_", "process_")) else line)
        with open(path + ".tmp", "w") as f:
            f.write("\n".join(out) + "\n")
        os.replace(path + ".tmp", path)
    time.sleep(1)
PY
ITEST_PIDS+=("$!")
start_server serve /vllm python3 "$REPO/tests/integration/page_server.py" "$SCRATCH/serve" @PORT@
start_server train /training python3 "$REPO/tests/integration/page_server.py" "$SCRATCH/train" @PORT@

python3 - "$REPO/tests/fake_nvml/scenarios/h100x8.json" "$SCRATCH/scenario.json" "$serve_PID" "$train_PID" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
serve, train = int(sys.argv[3]), int(sys.argv[4])
for gpu, pid in ((0, serve), (1, serve), (2, train)):
    d["devices"][gpu]["processes"] = [{"pid": pid, "type": "C", "used_memory": (40 + gpu) << 30}]
json.dump(d, open(sys.argv[2], "w"))
PY
cat >"$SCRATCH/scrape.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: vllm
    metrics_path: /vllm
    static_configs: [{targets: ["127.0.0.1:$serve_PORT"], labels: {pid: "$serve_PID"}}]
  - job_name: train
    metrics_path: /training
    static_configs: [{targets: ["127.0.0.1:$train_PORT"], labels: {pid: "$train_PID"}}]
  - job_name: broken
    metrics_path: /status/503
    static_configs: [{targets: ["127.0.0.1:$serve_PORT"]}]
EOF
export LLMON_FAKE_NVML_SCENARIO="$SCRATCH/scenario.json"
start_llmon --nvml.library="$FAKE" --collect.interval=1s --scrape.config="$SCRATCH/scrape.yml" \
  --rules.evaluation-interval=1s --logwatch.enabled=false --web.enable-push
start_server bare /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ --storage.path="$SCRATCH/bare-data" \
  --nvml.library="$FAKE" --logwatch.enabled=false
fetch "$llmon_URL/" "$SCRATCH/index.html"
grep -q 'assets/app.js' "$SCRATCH/index.html" || skip "this llmon was built without the dashboard (-DLLMON_WEB=OFF)"

BARE_URL="$bare_URL" SERVE_PID="$serve_PID" TRAIN_PID="$train_PID" \
  "$NODE" "$REPO/web/browser/apps.browser.mjs" "$llmon_URL" "$ART" "$CHROMIUM" 2>&1 | tee "$SCRATCH/browser.out"
rc=${PIPESTATUS[0]}
grep -q 'level=error' "$SCRATCH/llmon.log" && fail "error lines in the agent log: $(grep 'level=error' "$SCRATCH/llmon.log" | head -3)"
[[ $rc -eq 0 ]] || fail "browser checks failed (screenshots in $ART)"
log "screenshots in $ART"
