#!/usr/bin/env bash
# The built-in LLM rule pack (deploy/rules/llm_serving.yml, llm_training.yml)
# in a running `llmon agent`, fed with the recorded application pages of
# tests/fixtures/apps/ (README.md there):
#   1. fifteen minutes of history are made from each page (counters, buckets,
#      _sum and _count grow linearly from 0 to the page's value; gauges keep
#      theirs) and imported through POST /api/v1/import/prometheus, each page
#      as one target (job, instance);
#   2. every rule group of the two files evaluates without an error
#      (/api/v1/rules: health "ok", no lastError);
#   3. the recorded quantiles, rates and ratios equal what the page itself
#      says: a histogram's P50/P99 computed here from its cumulative buckets
#      (the 5-minute rate has the same bucket shares), a counter's value over
#      the 15 minutes, a gauge's value;
#   4. the check can fail: a wrong expected value is reported.
# Usage: llm_rules_fixtures_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154  # llmon_URL comes from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"

start_llmon --collector.disable-defaults --rules.evaluation-interval=1s --web.enable-import

# 1. History: 16 scrapes, one a minute, the last one now.
now_ms=$(($(date +%s) * 1000))
python3 - "$REPO/tests/fixtures/apps" "$SCRATCH" "$now_ms" <<'EOF' || fail "could not build the history"
import os, re, sys
apps, out, now = sys.argv[1], sys.argv[2], int(sys.argv[3])
targets = {"vllm.prom": ("vllm", "gpu07:8000"), "tgi.prom": ("tgi", "gpu08:80"),
           "sglang.prom": ("sglang", "gpu09:30000"), "triton.prom": ("triton", "gpu10:8002"),
           "training.prom": ("train", "gpu11:9000")}
line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$')
for page, (job, inst) in targets.items():
    types, lines = {}, []
    for line in open(os.path.join(apps, page)):
        line = line.rstrip("\n")
        m = re.match(r'^# TYPE (\S+) (\S+)$', line)
        if m:
            types[m.group(1)] = m.group(2)
        if not line or line.startswith("#"):
            continue
        lines.append(line_re.match(line).groups())
    def grows(name):
        for base, t in types.items():
            if t == "counter" and name == base:
                return True
            if t in ("histogram", "summary") and name in (base + "_bucket", base + "_sum", base + "_count"):
                return True
        return False
    with open(os.path.join(out, page + ".history"), "w") as f:
        for k in range(16):
            ts = now - (15 - k) * 60000
            for name, labels, value in lines:
                v = float(value)
                if grows(name):
                    v = v * k / 15
                lab = (labels or "{}")[1:-1]
                lab = ",".join(x for x in (lab, f'job="{job}"', f'instance="{inst}"') if x)
                f.write(f"{name}{{{lab}}} {v!r} {ts}\n")
EOF
for page in vllm tgi sglang triton training; do
  out=$(curl -s --max-time 20 -w ' %{http_code}' --data-binary "@$SCRATCH/$page.prom.history" \
    "$llmon_URL/api/v1/import/prometheus") || fail "import of $page.prom failed"
  [[ "$out" == *" 204" || "$out" == *" 200" ]] || fail "import of $page.prom answered: $out"
done
log "imported 15 minutes of the five pages"

# 2./3. Wait until every LLM recording rule has a value, then compare.
rules_ok() {
  curl -s --max-time 5 "$llmon_URL/api/v1/rules" >"$SCRATCH/rules.json" || return 1
  python3 - "$SCRATCH/rules.json" <<'EOF'
import json, sys
groups = [g for g in json.load(open(sys.argv[1]))["data"]["groups"] if g["file"].split("/")[-1].startswith("llm_")]
if len(groups) != 4:
    sys.exit(f'expected the 4 groups of llm_serving.yml and llm_training.yml, found {[g["name"] for g in groups]}')
for g in groups:
    for r in g["rules"]:
        if r.get("lastEvaluation", "0001").startswith("0001"):
            sys.exit(1)  # not evaluated yet
        if r["health"] != "ok" or r.get("lastError"):
            print(f'{g["name"]}: {r["name"]}: health {r["health"]}: {r.get("lastError")}', file=sys.stderr)
            sys.exit(2)
EOF
}
deadline=$((SECONDS + 30))
until rules_ok; do
  [[ $? -eq 2 ]] && fail "an LLM rule failed to evaluate"
  ((SECONDS < deadline)) || fail "the LLM rule groups were not all evaluated within 30 s"
  sleep 0.5
done
log "the four LLM rule groups evaluate without errors"

compare() {  # compare [--wrong]: exit 0 when every value matches
  python3 - "$REPO/tests/fixtures/apps" "$llmon_URL" "${1:-}" <<'EOF'
import json, math, re, sys, urllib.parse, urllib.request
apps, url, wrong = sys.argv[1], sys.argv[2], sys.argv[3] == "--wrong"
def page(name):
    d = {}
    for line in open(f"{apps}/{name}"):
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$', line.strip())
        if m and not line.startswith("#"):
            labels = dict(re.findall(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
            d.setdefault(m.group(1), []).append((labels, float(m.group(3))))
    return d
def hq(q, buckets):  # Prometheus's histogram_quantile on (le, cumulative count) pairs
    buckets = sorted((float(le), c) for le, c in buckets)
    rank = q * buckets[-1][1]
    lo, prev = 0.0, 0.0
    for le, c in buckets:
        if c >= rank:
            if math.isinf(le):
                return buckets[-2][0]
            return lo + (le - lo) * (rank - prev) / (c - prev)
        lo, prev = le, c
def buckets(p, name, **match):
    return [(l["le"], v) for l, v in p[name + "_bucket"] if all(l.get(k) == x for k, x in match.items())]
def one(p, name, **match):
    return [v for l, v in p[name] if all(l.get(k) == x for k, x in match.items())][0]
vllm, tgi, sgl, tri, train = (page(n) for n in ("vllm.prom", "tgi.prom", "sglang.prom", "triton.prom", "training.prom"))
exp = [
    ('llm:time_to_first_token_seconds:p50_rate5m{llm_engine="vllm"}', hq(0.5, buckets(vllm, "vllm:time_to_first_token_seconds"))),
    ('llm:time_to_first_token_seconds:p99_rate5m{llm_engine="vllm"}', hq(0.99, buckets(vllm, "vllm:time_to_first_token_seconds"))),
    ('llm:time_to_first_token_seconds:p99_rate5m{llm_engine="sglang"}', hq(0.99, buckets(sgl, "sglang:time_to_first_token_seconds"))),
    ('llm:time_to_first_token_seconds:p99_rate5m{llm_engine="triton",model="tensorrt_llm"}',
     hq(0.99, buckets(tri, "nv_inference_first_response_histogram_ms", model="tensorrt_llm")) / 1000),
    ('llm:time_per_output_token_seconds:p50_rate5m{llm_engine="vllm"}', hq(0.5, buckets(vllm, "vllm:time_per_output_token_seconds"))),
    ('llm:time_per_output_token_seconds:p99_rate5m{llm_engine="sglang"}', hq(0.99, buckets(sgl, "sglang:time_per_output_token_seconds"))),
    ('llm:time_per_output_token_seconds:p99_rate5m{llm_engine="tgi"}', hq(0.99, buckets(tgi, "tgi_request_mean_time_per_token_duration"))),
    ('llm:generation_tokens:rate5m{llm_engine="vllm"}', one(vllm, "vllm:generation_tokens_total") / 900),
    ('llm:generation_tokens:rate5m{llm_engine="tgi"}', one(tgi, "tgi_request_generated_tokens_sum") / 900),
    ('llm:prompt_tokens:rate5m{llm_engine="sglang"}', one(sgl, "sglang:prompt_tokens_total") / 900),
    ('llm:kv_cache_usage:ratio{llm_engine="vllm"}', one(vllm, "vllm:gpu_cache_usage_perc")),
    ('llm:kv_cache_usage:ratio{llm_engine="sglang"}', one(sgl, "sglang:token_usage")),
    ('llm:kv_cache_usage:ratio{llm_engine="triton"}',
     one(tri, "nv_trt_llm_kv_cache_block_metrics", kv_cache_block_type="used") / one(tri, "nv_trt_llm_kv_cache_block_metrics", kv_cache_block_type="max")),
    ('llm:train_step_duration_seconds:p50_10m', hq(0.5, buckets(train, "train_step_duration_seconds"))),
    ('llm:train_step_duration_seconds:p99_10m', hq(0.99, buckets(train, "train_step_duration_seconds"))),
    ('llm:train_tokens:rate5m', one(train, "train_tokens_total") / 900),
    ('llm:train_samples:rate5m', one(train, "train_samples_total") / 900),
]
bad = 0
for i, (q, want) in enumerate(exp):
    if wrong and i == 0:
        want *= 1.01
    with urllib.request.urlopen(f"{url}/api/v1/query?query=" + urllib.parse.quote(q), timeout=10) as r:
        res = json.load(r)["data"]["result"]
    if len(res) != 1:
        print(f"{q}: {len(res)} series, want 1", file=sys.stderr); bad += 1; continue
    got = float(res[0]["value"][1])
    if not math.isclose(got, want, rel_tol=1e-9):
        print(f"{q}: got {got}, want {want}", file=sys.stderr); bad += 1; continue
    if not wrong:
        print(f"{q} = {got:.6g}", file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}
# The first evaluations may have run before the import: poll until they see it.
deadline=$((SECONDS + 30))
until compare 2>"$SCRATCH/compare.out"; do
  if ((SECONDS >= deadline)); then
    cat "$SCRATCH/compare.out" >&2
# Evaluated with the data in the store now: still no rule in error.
rules_ok || fail "an LLM rule failed to evaluate on the imported pages"
    fail "recorded values differ from the pages"
  fi
  sleep 0.5
done
cat "$SCRATCH/compare.out" >&2
compare --wrong 2>/dev/null && fail "self-check: a wrong expected value passed"
log "recorded quantiles, rates and ratios match the pages; a wrong value is caught"
