#!/usr/bin/env bash
# The default rule pack (deploy/rules/) against Prometheus's own tools:
#   1. `promtool check rules` accepts every rule file (*.yml except *.test.yml);
#   2. `promtool test rules` passes every test file (*.test.yml), and every rule
#      file has its test file and every test file its rule file;
#   3. the pack keeps its conventions (checked with python3 + PyYAML when
#      present): every alert has a severity label (critical|warning|info), the
#      annotations summary, description and runbook, uses only the template
#      functions llmon implements, and has a test where it fires and one where
#      it must not; every recording rule is queried by a test;
#   4. the checks can fail: a rule file with a shifted threshold fails its
#      tests, and a broken rule file fails `promtool check rules`.
# The llmon binary is not used yet (ctest passes it); when `llmon rules test`
# exists it should run the same test files here.
# Usage: rule_pack_promtool_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/lib.sh"

# Like itest_init, without its curl requirement (nothing is fetched here).
LLMON="${1:-}"
[[ -n "$LLMON" ]] || fail "usage: $0 <path-to-llmon-binary>"
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/llmon-${ITEST_NAME}.XXXXXX")" || fail "cannot create a scratch dir"
trap itest_cleanup EXIT

require_cmd promtool || skip "promtool not installed (apt-get install prometheus)"
log "$(promtool --version 2>&1 | head -n 1)"

PACK="$REPO/deploy/rules"
[[ -d "$PACK" ]] || fail "no rule pack at $PACK"
rules=()
tests=()
for f in "$PACK"/*.yml; do
  case "$f" in
    *.test.yml) tests+=("$f") ;;
    *) rules+=("$f") ;;
  esac
done
((${#rules[@]} > 0)) || fail "no rule files in $PACK"
((${#tests[@]} > 0)) || fail "no test files in $PACK"
for f in "${rules[@]}"; do
  [[ -f "${f%.yml}.test.yml" ]] || fail "$(basename "$f") has no test file $(basename "${f%.yml}").test.yml"
done
for f in "${tests[@]}"; do
  [[ -f "${f%.test.yml}.yml" ]] || fail "$(basename "$f") tests a rule file that does not exist"
done

# 1. Syntax and PromQL of every rule file.
if ! promtool check rules "${rules[@]}" >"$SCRATCH/check.out" 2>&1; then
  cat "$SCRATCH/check.out" >&2
  fail "promtool check rules rejected the pack"
fi
n_rules=$(grep -o 'SUCCESS: [0-9]* rules found' "$SCRATCH/check.out" | awk '{s += $2} END {print s + 0}')
log "promtool check rules: ${#rules[@]} files, $n_rules rules, all valid"

# 2. The unit tests.
if ! promtool test rules "${tests[@]}" >"$SCRATCH/test.out" 2>&1; then
  cat "$SCRATCH/test.out" >&2
  fail "promtool test rules failed"
fi
n_ok=$(grep -c 'SUCCESS' "$SCRATCH/test.out")
((n_ok == ${#tests[@]})) || fail "promtool test rules: $n_ok of ${#tests[@]} files reported SUCCESS"
log "promtool test rules: ${#tests[@]} files, all SUCCESS"

# 3. Conventions and coverage.
if python3 -c 'import yaml' 2>/dev/null; then
  python3 - "$PACK" <<'EOF' || fail "rule pack conventions (see above)"
import glob, os, re, sys
import yaml

pack = sys.argv[1]
# The Go-template subset llmon implements (issue 6, "Rules").
allowed = {'if', 'else', 'end', 'range', 'printf', 'humanize', 'humanize1024', 'humanizeDuration',
           'humanizePercentage', 'humanizeTimestamp', 'title', 'toUpper', 'toLower', 'reReplaceAll',
           'query', 'first', 'value', 'label'}
variables = {'$labels', '$value', '$externalLabels'}
errors = []
alerts, records = {}, set()
for path in sorted(glob.glob(os.path.join(pack, '*.yml'))):
    if path.endswith('.test.yml'):
        continue
    name = os.path.basename(path)
    for group in yaml.safe_load(open(path))['groups']:
        for r in group['rules']:
            if 'record' in r:
                records.add(r['record'])
                continue
            a = r['alert']
            if a in alerts:
                errors.append(f'{name}: alert {a} defined twice')
            alerts[a] = name
            sev = r.get('labels', {}).get('severity')
            if sev not in ('critical', 'warning', 'info'):
                errors.append(f'{name}: {a}: severity {sev!r} is not critical, warning or info')
            ann = r.get('annotations', {})
            for k in ('summary', 'description', 'runbook'):
                if not ann.get(k):
                    errors.append(f'{name}: {a}: no {k} annotation')
            for k, text in list(ann.items()) + list(r.get('labels', {}).items()):
                for action in re.findall(r'{{(.*?)}}', text, re.S):
                    action = re.sub(r'"(?:[^"\\]|\\.)*"', '""', action)  # drop string literals
                    action = re.sub(r'(\$[A-Za-z_]\w*)(\.\w+)+', r'\1', action)  # $labels.x -> $labels
                    for word in re.findall(r'\$?[A-Za-z_][A-Za-z0-9_]*', action):
                        if word.startswith('$'):
                            if word not in variables:
                                errors.append(f'{name}: {a}: {k}: template variable {word} not in the subset')
                        elif word not in allowed:
                            errors.append(f'{name}: {a}: {k}: template function {word} not in the subset')
fires, silent, queried = set(), set(), []
for path in sorted(glob.glob(os.path.join(pack, '*.test.yml'))):
    for t in yaml.safe_load(open(path))['tests']:
        for c in t.get('alert_rule_test', []):
            (fires if c.get('exp_alerts') else silent).add(c['alertname'])
        for c in t.get('promql_expr_test', []):
            queried.append(c['expr'])
for a, name in sorted(alerts.items()):
    if a not in fires:
        errors.append(f'{name}: {a}: no test where it fires')
    if a not in silent:
        errors.append(f'{name}: {a}: no test where it must not fire')
for rec in sorted(records):
    if not any(re.search(r'(^|[^A-Za-z0-9_:])' + re.escape(rec) + r'($|[^A-Za-z0-9_:])', e) for e in queried):
        errors.append(f'recording rule {rec} is not queried by any promql_expr_test')
for e in errors:
    print(e, file=sys.stderr)
if errors:
    sys.exit(1)
print(f'{len(alerts)} alerts, each firing and silent in a test; {len(records)} recording rules, each queried; '
      f'templates within the subset', file=sys.stderr)
EOF
  log "conventions: ok"
else
  log "python3 with PyYAML not available: conventions and coverage not checked"
fi

# 4. The checks can fail.
mkdir -p "$SCRATCH/pack"
cp "$PACK"/*.yml "$SCRATCH/pack/"
sed -i 's/) >= 0\.85$/) >= 0.80/' "$SCRATCH/pack/gpu.yml"
cmp -s "$PACK/gpu.yml" "$SCRATCH/pack/gpu.yml" && fail "self-check: could not shift the GPU memory threshold"
if promtool test rules "$SCRATCH/pack/gpu.test.yml" >"$SCRATCH/mutant.out" 2>&1; then
  fail "self-check: the GPU tests pass with the memory warning at 80 % instead of 85 %"
fi
printf 'groups:\n  - name: broken\n    rules:\n      - alert: Broken\n        expr: rate(x[5m]\n' \
  >"$SCRATCH/pack/broken.yml"
if promtool check rules "$SCRATCH/pack/broken.yml" >/dev/null 2>&1; then
  fail "self-check: promtool check rules accepted a rule with a PromQL syntax error"
fi
log "self-check: a shifted threshold fails the tests, a syntax error fails the check"
