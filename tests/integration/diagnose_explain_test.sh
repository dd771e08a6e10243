#!/usr/bin/env bash
# `llmon diagnose --explain` (docs/diagnosis.md "Explanations"): the
# findings of the gpu_memory_pressure scenario sent to an OpenAI-compatible
# server (tests/tools/fake_chat_server.py: vLLM and llama.cpp are not in
# Debian 12) and its answer printed after the report, in text and JSON; the
# model taken from /v1/models; the API key as a bearer token; nothing sent
# without --explain; a server error reported without hiding the findings.
# Usage: diagnose_explain_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
require_cmd python3 || skip "python3 not installed"

python3 "$REPO/tests/diagnose/scenarios.py" write "$SCRATCH/data" --only gpu_memory_pressure --step 5 >/dev/null ||
  fail "scenarios.py failed"
"$LLMON" tsdb import "$SCRATCH/data/gpu_memory_pressure.prom" --storage.path="$SCRATCH/store" \
  >"$SCRATCH/import.log" 2>&1 || fail "import failed: $(cat "$SCRATCH/import.log")"
END="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end_ms"] / 1000)' "$SCRATCH/data/gpu_memory_pressure.json")"
start_server chat /v1/models /usr/bin/python3 "$REPO/tests/tools/fake_chat_server.py" @PORT@ "$SCRATCH/chat.jsonl" served-model
start_server broken /v1/models /usr/bin/python3 "$REPO/tests/tools/fake_chat_server.py" @PORT@ "$SCRATCH/broken.jsonl" m 503
printf 'sk-test-123\n' >"$SCRATCH/key"

DIAG=("$LLMON" diagnose --storage.path="$SCRATCH/store" --time="$END" --window=15m)
rc=0
"${DIAG[@]}" --explain --diagnose.llm.url="$chat_URL" --diagnose.llm.api-key-file="$SCRATCH/key" \
  >"$SCRATCH/out.txt" 2>"$SCRATCH/err.txt" || rc=$?
[[ $rc -eq 1 ]] || fail "exit $rc (want 1: a warning finding): $(cat "$SCRATCH/err.txt")"
grep -q "^EXPLANATION  by served-model at $chat_URL" "$SCRATCH/out.txt" || fail "no EXPLANATION: $(cat "$SCRATCH/out.txt")"
grep -q "^Act on gpu_memory_pressure first" "$SCRATCH/out.txt" || fail "the model's text is missing"
python3 - "$SCRATCH/chat.jsonl" <<'PY' || fail "the request to the model (above)"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 1, reqs
r = reqs[0]
assert r["path"] == "/v1/chat/completions" and r["auth"] == "Bearer sk-test-123", r
body = r["body"]
assert body["model"] == "served-model", body["model"]
user = body["messages"][1]["content"]
data = json.loads(user[user.index("{"):])
f = data["findings"][0]
assert f["kind"] == "gpu_memory_pressure" and f["subject"]["pid"] == "4101", f
assert f["evidence"] and "DCGM_FI_DEV_FB_FREE" in f["evidence"][0]["query"], f["evidence"]
assert data["window"] == "15m", data
PY

"${DIAG[@]}" --json --explain --diagnose.llm.url="$chat_URL/v1" --diagnose.llm.model=given \
  >"$SCRATCH/out.json" 2>"$SCRATCH/err.json" || true
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["explanation"]; assert e["model"]=="given" and "gpu_memory_pressure" in e["text"], e' \
  "$SCRATCH/out.json" || fail "JSON explanation: $(cat "$SCRATCH/out.json" | tail -5)"

# Without --explain nothing is sent; --explain without a URL is refused.
lines="$(wc -l <"$SCRATCH/chat.jsonl")"
"${DIAG[@]}" --diagnose.llm.url="$chat_URL" >/dev/null 2>&1 || true
[[ "$(wc -l <"$SCRATCH/chat.jsonl")" == "$lines" ]] || fail "a request was sent without --explain"
rc=0
"${DIAG[@]}" --explain >/dev/null 2>"$SCRATCH/usage.txt" || rc=$?
[[ $rc -eq 2 ]] && grep -q "needs --diagnose.llm.url" "$SCRATCH/usage.txt" || fail "--explain without a URL: exit $rc"

# The server fails: the findings are printed, the error named, the exit code unchanged.
rc=0
"${DIAG[@]}" --explain --diagnose.llm.url="$broken_URL" >"$SCRATCH/b.txt" 2>"$SCRATCH/b.err" || rc=$?
[[ $rc -eq 1 ]] || fail "exit $rc with a failing model server"
grep -q "gpu_memory_pressure" "$SCRATCH/b.txt" || fail "the findings are missing when the model fails"
grep -q "HTTP 503: the server says: model overloaded" "$SCRATCH/b.err" || fail "the error: $(cat "$SCRATCH/b.err")"
log "--explain sends the findings with their evidence and prints the model's answer"
