#!/usr/bin/env bash
# The ethtool collector against node_exporter 1.5 on the live kernel: both
# read the real /sys/class/net and ask SIOCETHTOOL about the same interfaces,
# among them a veth pair made here with 64 queues (veth answers GDRVINFO, GSET
# and 9 XDP stats per queue plus peer_ifindex: 577 names, a GSTRINGS answer of
# several pages) and deleted at exit; once with default flags, once with the
# device and metrics filters. ethtool_compare.py checks families, types, help
# and label sets exactly, values where nothing counts between the two scrapes
# (node_ethtool_info, the node_network_* link families, peer_ifindex): the
# other stats are counters of live interfaces.
# Needs root (creating a veth pair), iproute2, node_exporter and python3.
# shellcheck source=tests/integration/lib.sh
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
ip link add "$VA" numtxqueues 64 numrxqueues 64 type veth peer name "$VB" numtxqueues 64 numrxqueues 64 \
  2>"$SCRATCH/ip.err" || skip "cannot create a veth pair: $(head -c 200 "$SCRATCH/ip.err")"

# The interfaces both look at: the pair, plus the host's usual long-lived
# ones (other tests on this host may add and remove interfaces meanwhile).
INCLUDE="^(lo|eth[0-9]+|ens[0-9a-z]+|enp[0-9a-z]+|ifb[0-9]+|$VA|$VB)\$"

# run_pair TAG FLAGS...: node_exporter and llmon with the same ethtool flags, compared.
run_pair() {
  local tag="$1" i ne_url ll_url
  shift
  start_server "ne$tag" /metrics "$NE" --web.listen-address=127.0.0.1:@PORT@ \
    --collector.disable-defaults --collector.ethtool "$@" --log.level=warn
  start_server "llmon$tag" /metrics "$LLMON" agent --web.listen-address=127.0.0.1:@PORT@ \
    --storage.path="$SCRATCH/llmon-data$tag" --collector.disable-defaults --collector.ethtool "$@" --log.level=warn
  ne_url="ne${tag}_URL"
  ll_url="llmon${tag}_URL"
  # llmon's page is its last cycle's (1 s); wait for a cycle that has the pair.
  for ((i = 0; i < 50; i++)); do
    fetch "${!ll_url}/metrics" "$SCRATCH/llmon$tag.prom"
    grep -q "^node_ethtool_info{.*device=\"$VA\"" "$SCRATCH/llmon$tag.prom" && break
    sleep 0.1
  done
  fetch "${!ne_url}/metrics" "$SCRATCH/ne$tag.prom"
  fetch "${!ll_url}/metrics" "$SCRATCH/llmon$tag.prom"
  python3 "$REPO/tests/integration/ethtool_compare.py" "$SCRATCH/ne$tag.prom" "$SCRATCH/llmon$tag.prom" "$VA" ||
    fail "flags $*: llmon's ethtool families differ from node_exporter's (above)"
}

run_pair 1 "--collector.ethtool.device-include=$INCLUDE"
# The filters: the pair's second end excluded, stats chosen by the driver's names.
run_pair 2 "--collector.ethtool.device-include=$INCLUDE" "--collector.ethtool.device-exclude=^$VB\$" \
  '--collector.ethtool.metrics-include=^(peer_|rx_queue_1_|tx_)'
grep -q "device=\"$VB\"" "$SCRATCH/llmon2.prom" && fail "device-exclude=^$VB\$ left $VB's series on llmon's page"
log "llmon's ethtool families match node_exporter's on the live interfaces"
