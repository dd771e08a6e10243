#!/usr/bin/env bash
# deploy/kubernetes checked offline (docs/deploy.md "Kubernetes"):
#  * every document of the base and of both overlays against the committed
#    OpenAPI subset (tests/tools/k8s_schema_check.py: unknown fields, types,
#    enums, required fields, then selectors, volumes and named ports);
#  * the checker catches a misspelt field, a string where an integer goes
#    and a value outside an enum, naming FILE:LINE:COL;
#  * the DaemonSet's flags are flags this llmon has;
#  * when a kubectl is installed: `kubectl kustomize` builds each directory
#    offline and what it builds passes the same check (kubectl's own
#    --dry-run=client needs a cluster's OpenAPI, so it is not used).
# Usage: kubernetes_manifests_test.sh <path-to-llmon-binary>
# shellcheck source=tests/integration/lib.sh disable=SC2154
source "$(dirname "$0")/lib.sh"
itest_init "$@"
PY=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import yaml' 2>/dev/null; then PY="$p"; break; fi
done
[[ -n "$PY" ]] || skip "no python3 with PyYAML (Debian package python3-yaml)"
CHECK=("$PY" "$REPO/tests/tools/k8s_schema_check.py")
K8S="$REPO/deploy/kubernetes"

"${CHECK[@]}" "$K8S" "$K8S/servicemonitor" "$K8S/podmonitor" >"$SCRATCH/ok.txt" 2>&1 ||
  fail "the manifests do not pass the schema check: $(cat "$SCRATCH/ok.txt")"
grep -q '^.*/deploy/kubernetes: 6 objects: ClusterRole/llmon, ClusterRoleBinding/llmon, DaemonSet/llmon, Namespace/llmon, Service/llmon, ServiceAccount/llmon$' "$SCRATCH/ok.txt" ||
  fail "unexpected objects: $(cat "$SCRATCH/ok.txt")"
grep -q 'servicemonitor: 7 objects: .*ServiceMonitor/llmon' "$SCRATCH/ok.txt" || fail "no ServiceMonitor: $(cat "$SCRATCH/ok.txt")"
grep -q 'podmonitor: 7 objects: .*PodMonitor/llmon' "$SCRATCH/ok.txt" || fail "no PodMonitor: $(cat "$SCRATCH/ok.txt")"
log "base and overlays pass"

# The checker must catch mistakes: a copy with three of them.
cp -r "$K8S" "$SCRATCH/k8s"
DS="$SCRATCH/k8s/base/daemonset.yaml"
line_of() { grep -n -m1 -- "$1" "$2" | cut -d: -f1; }
ro_line="$(line_of 'readOnly: true' "$DS")"
sed -i "${ro_line}s/readOnly:/readOnyl:/" "$DS"
sed -i 's/containerPort: 8747/containerPort: "8747"/; s/type: CharDevice/type: CharDev/' "$DS"
sed -i 's/    - port: metrics/    - prot: metrics/' "$SCRATCH/k8s/servicemonitor/servicemonitor.yaml"
if "${CHECK[@]}" "$SCRATCH/k8s/servicemonitor" >"$SCRATCH/bad.txt" 2>&1; then fail "the checker passed broken manifests"; fi
want() { grep -qF -- "$1" "$SCRATCH/bad.txt" || fail "missing error: $1; got: $(cat "$SCRATCH/bad.txt")"; }
want "$DS:${ro_line}:15: spec.template.spec.containers[0].volumeMounts[0].readOnyl: unknown field (not in mountPath, mountPropagation, name, readOnly, subPath)"
want "$DS:$(line_of 'containerPort:' "$DS"):30: spec.template.spec.containers[0].ports[0].containerPort: want an integer, not '8747' (str)"
want "$DS:$(line_of 'type: CharDev' "$DS"):19: spec.template.spec.volumes[2].hostPath.type: 'CharDev' is not one of"
want "servicemonitor.yaml:$(line_of 'prot: metrics' "$SCRATCH/k8s/servicemonitor/servicemonitor.yaml"):7: spec.endpoints[0].prot: unknown field"
[[ "$(wc -l <"$SCRATCH/bad.txt")" -eq 4 ]] || fail "want exactly 4 errors: $(cat "$SCRATCH/bad.txt")"
# A cross-reference: a mount of a volume that is not declared.
cp "$K8S/base/daemonset.yaml" "$DS"
sed -i 's/^        - name: store$/        - name: stor/' "$DS"
if "${CHECK[@]}" "$SCRATCH/k8s" >"$SCRATCH/bad2.txt" 2>&1; then fail "the checker passed a mount of an undeclared volume"; fi
grep -qF "container llmon mounts undeclared volume store" "$SCRATCH/bad2.txt" || fail "$(cat "$SCRATCH/bad2.txt")"
log "a misspelt field, a wrong type, a bad enum value and a dangling mount are caught"

# The DaemonSet's flags exist.
"$LLMON" help --markdown >"$SCRATCH/cli.md" || fail "llmon help --markdown failed"
"$PY" - "$K8S/base/daemonset.yaml" "$SCRATCH/cli.md" <<'PY' || fail "the DaemonSet passes flags llmon does not have"
import re, sys, yaml
ds = yaml.safe_load(open(sys.argv[1]))
cli = open(sys.argv[2]).read()
known = set(re.findall(r"`--([a-z0-9.\-]+)`", cli))
args = ds["spec"]["template"]["spec"]["containers"][0]["args"]
assert args[0] == "agent", args
bad = []
for a in args[1:]:
    name = a[2:].split("=", 1)[0]
    if name.startswith("no-collector."):
        name = name[3:]
    if name not in known:
        bad.append(a)
if bad:
    sys.exit("unknown flags: %s" % bad)
PY
log "the DaemonSet's flags exist"

if require_cmd kubectl; then
  for d in "$K8S" "$K8S/servicemonitor" "$K8S/podmonitor"; do
    KUBECONFIG=/dev/null kubectl kustomize "$d" >"$SCRATCH/built.yaml" 2>"$SCRATCH/kz.err" ||
      fail "kubectl kustomize $d: $(cat "$SCRATCH/kz.err")"
    "${CHECK[@]}" - <"$SCRATCH/built.yaml" >"$SCRATCH/built.txt" 2>&1 || fail "kustomize's output for $d: $(cat "$SCRATCH/built.txt")"
    grep -q 'image: llmon:0.1.0' "$SCRATCH/built.yaml" || fail "kustomize did not set the image tag for $d"
  done
  log "kubectl kustomize builds base and overlays; the output passes the check"
else
  log "no kubectl: kustomize build not tried"
fi
log "Kubernetes manifests pass"
