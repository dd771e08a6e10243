#!/usr/bin/env bash
# The ethtool collector against node_exporter 1.5 on the live kernel: both
# read the real /sys/class/net and ask SIOCETHTOOL about the same interfaces,
# among them a veth pair made here (veth answers GDRVINFO, GSET and per-queue
# XDP stats plus peer_ifindex) and deleted at exit. Families, types, help and
# label sets must match; values only where nothing counts between the two
# scrapes (node_ethtool_info, the node_network_* link families,
# peer_ifindex): the other stats are counters of live interfaces.
# Needs root (creating a veth pair), iproute2, node_exporter and python3.
# shellcheck source=tests/integration/lib.sh disable=SC2154  # NAME_URL comes from start_server
source "$(dirname "$0")/lib.sh"
itest_init "$@"

NE="${NODE_EXPORTER:-prometheus-node-exporter}"
require_cmd "$NE" || skip "node_exporter ($NE) not installed (apt-get install prometheus-node-exporter)"
require_cmd python3 || skip "python3 not installed"
require_cmd ip || skip "iproute2's ip not installed"
[[ "$(id -u)" == 0 ]] || skip "not root: cannot create the veth pair this test compares on"
[[ -d /sys/class/net ]] || skip "no /sys/class/net"

# Names unique to this run (IFNAMSIZ: at most 15 characters).
VA="llet$$a"
VB="llet$$b"
ethtool_cleanup() {
  local rc=$?
  ip link del "$VA" 2>/dev/null
  (exit "$rc")
  itest_cleanup
}
trap ethtool_cleanup EXIT
ip link add "$VA" type veth peer name "$VB" 2>"$SCRATCH/ip.err" ||
  skip "cannot create a veth pair: $(head -c 200 "$SCRATCH/ip.err")"

# The interfaces both look at: the pair, plus the host's usual long-lived
# ones (other tests on this host may add and remove interfaces meanwhile).
INCLUDE="^(lo|eth[0-9]+|ens[0-9a-z]+|enp[0-9a-z]+|ifb[0-9]+|$VA|$VB)\$"

start_server ne /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@ \
  --collector.disable-defaults --collector.ethtool "--collector.ethtool.device-include=$INCLUDE" --log.level=warn
start_llmon --collector.disable-defaults --collector.ethtool "--collector.ethtool.device-include=$INCLUDE" \
  --log.level=warn

# llmon's page is its last cycle's (1 s); wait for a cycle that has the pair.
for ((i = 0; i < 50; i++)); do
  fetch "$llmon_URL/metrics" "$SCRATCH/llmon.prom"
  grep -q "^node_ethtool_peer_ifindex{device=\"$VB\"}" "$SCRATCH/llmon.prom" && break
  sleep 0.1
done
fetch "$ne_URL/metrics" "$SCRATCH/ne.prom"
fetch "$llmon_URL/metrics" "$SCRATCH/llmon.prom"

python3 - "$SCRATCH/ne.prom" "$SCRATCH/llmon.prom" "$VA" "$VB" "$REPO/tests/integration" <<'EOF' || fail "llmon's ethtool families differ from node_exporter's (above)"
import re, sys
sys.path.insert(0, sys.argv[5])
import expo_diff

ne, _ = expo_diff.parse_page(open(sys.argv[1]).read(), "node_exporter")
ll, problems = expo_diff.parse_page(open(sys.argv[2]).read(), "llmon")
va, vb = sys.argv[3], sys.argv[4]
OURS = re.compile(r"node_(ethtool_|network_)")
EXACT = re.compile(r"node_ethtool_info|node_network_.*|node_ethtool_peer_ifindex")
bad = list(problems)
names = sorted(n for n in set(ne) | set(ll) if OURS.match(n))
for n in names:
    a, b = ne.get(n), ll.get(n)
    if a is None or b is None:
        bad.append("%s: only in %s" % (n, "llmon" if a is None else "node_exporter"))
        continue
    if (a.type, a.help) != (b.type, b.help):
        bad.append("%s: TYPE/HELP %r vs llmon %r" % (n, (a.type, a.help), (b.type, b.help)))
    if set(a.series) != set(b.series):
        only_ne = sorted(set(a.series) - set(b.series))[:5]
        only_ll = sorted(set(b.series) - set(a.series))[:5]
        bad.append("%s: series only in node_exporter %s, only in llmon %s" % (n, only_ne, only_ll))
        continue
    if EXACT.fullmatch(n):
        for k, v in a.series.items():
            if v != b.series[k]:
                bad.append("%s%s: node_exporter %r, llmon %r" % (n, dict(k[1]), v, b.series[k]))
for dev in (va, vb):
    if not any(dict(k[1]).get("device") == dev for k in ne.get("node_ethtool_peer_ifindex", expo_diff.Family("")).series):
        bad.append("node_exporter shows no peer_ifindex for %s: the comparison proves little" % dev)
success = lambda page: page.get("node_scrape_collector_success").series.get(
    ("node_scrape_collector_success", (("collector", "ethtool"),)))
if success(ne) != 1 or success(ll) != 1:
    bad.append("node_scrape_collector_success{collector=\"ethtool\"}: node_exporter %r, llmon %r" % (success(ne), success(ll)))
for line in bad:
    print("FAIL:", line)
print("%d families compared, %d differences" % (len(names), len(bad)))
sys.exit(1 if bad else 0)
EOF
log "llmon's ethtool families match node_exporter's on the live interfaces"
