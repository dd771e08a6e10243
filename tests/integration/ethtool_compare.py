#!/usr/bin/env python3
"""Compares the ethtool collector's families on two /metrics pages.

Usage: ethtool_compare.py NODE_EXPORTER_PAGE LLMON_PAGE DEVICE

For ethtool_live_test.sh: node_exporter 1.5 and llmon scraped one after the
other on the live kernel. Every node_ethtool_* and node_network_* family must
be on both pages with the same TYPE, HELP and set of series (name and
labels); values must be equal for node_ethtool_info, the node_network_* link
families and node_ethtool_peer_ifindex, which nothing moves between the two
scrapes (the other stats are counters of live interfaces). DEVICE (the veth
end the test made) must have a peer_ifindex on node_exporter's page, and both
must report node_scrape_collector_success{collector="ethtool"} 1.
Exit status 0 when they agree, 1 otherwise.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expo_diff  # noqa: E402

OURS = re.compile(r"node_(ethtool_|network_)")
EXACT = re.compile(r"node_ethtool_info|node_network_.*|node_ethtool_peer_ifindex")


def success(page):
    f = page.get("node_scrape_collector_success")
    return f.series.get(("node_scrape_collector_success", (("collector", "ethtool"),))) if f else None


def main(argv):
    ne, _ = expo_diff.parse_page(open(argv[1], encoding="utf-8").read(), "node_exporter")
    ll, problems = expo_diff.parse_page(open(argv[2], encoding="utf-8").read(), "llmon")
    device = argv[3]
    bad = list(problems)
    names = sorted(n for n in set(ne) | set(ll) if OURS.match(n))
    for n in names:
        a, b = ne.get(n), ll.get(n)
        if a is None or b is None:
            bad.append("%s: only in %s" % (n, "llmon" if a is None else "node_exporter"))
            continue
        if (a.type, a.help) != (b.type, b.help):
            bad.append("%s: TYPE/HELP %r, llmon %r" % (n, (a.type, a.help), (b.type, b.help)))
        if set(a.series) != set(b.series):
            bad.append("%s: series only in node_exporter %s, only in llmon %s"
                       % (n, sorted(set(a.series) - set(b.series))[:5], sorted(set(b.series) - set(a.series))[:5]))
            continue
        if EXACT.fullmatch(n):
            for k, v in a.series.items():
                if v != b.series[k]:
                    bad.append("%s%s: node_exporter %r, llmon %r" % (n, dict(k[1]), v, b.series[k]))
    peer = ne.get("node_ethtool_peer_ifindex")
    if not peer or not any(dict(k[1]).get("device") == device for k in peer.series):
        bad.append("node_exporter shows no peer_ifindex for %s: the comparison proves little" % device)
    if success(ne) != 1 or success(ll) != 1:
        bad.append('node_scrape_collector_success{collector="ethtool"}: node_exporter %r, llmon %r'
                   % (success(ne), success(ll)))
    for line in bad:
        print("FAIL:", line)
    print("%d families compared, %d series, %d differences"
          % (len(names), sum(len(ne[n].series) for n in names if n in ne), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
