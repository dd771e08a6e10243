#!/usr/bin/env python3
"""Frozen copy of this machine's /proc and /sys, and the coverage comparer.

  frozen_tree.py copy DEST
      Copies the /proc files and /sys subtrees node_exporter 1.5's default
      collectors read into DEST/{proc,sys,udev/data} (plain files; sysfs
      symlinks kept as the same relative links where their targets are
      copied too). Bounded in files, bytes and time; unreadable files are
      skipped. Prints what it copied.

  frozen_tree.py compare --node-exporter URL --llmon URL [--live-node-exporter URL]
      Coverage of node_exporter's series by llmon, both reading DEST:
      coverage = series of node_exporter (less EXCLUDED families) that llmon
      has with the same labels and the same value, over all of them. Fails
      (exit 1) below --min-coverage or on any value, TYPE or HELP that differs,
      or a series llmon adds to a family node_exporter has, unless matched by
      --known-diffs. Prints the missing families grouped by node_exporter
      collector.

Standard library only; the page parser is expo_diff.py's.
"""

import argparse
import math
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expo_diff  # noqa: E402

# ---------------------------------------------------------------- copy

# /proc entries node_exporter's default collectors (and llmon's) open; a
# directory is copied whole. Found with `strace -f -e trace=openat` on
# node_exporter plus the collectors whose files this machine may lack
# (mdadm, ipvs, nfs, nfsd, zfs, conntrack).
PROC_ENTRIES = [
    "stat", "meminfo", "loadavg", "vmstat", "diskstats", "mdstat", "schedstat", "cpuinfo",
    "filesystems", "1/mounts",
    "pressure",
    "net/dev", "net/arp", "net/netstat", "net/snmp", "net/snmp6", "net/sockstat", "net/sockstat6",
    "net/softnet_stat", "net/udp", "net/udp6", "net/ip_vs", "net/ip_vs_stats", "net/stat", "net/rpc",
    "sys/fs/file-nr", "sys/kernel/random", "sys/net/netfilter", "sys/net/core/somaxconn",
    "spl/kstat/zfs",
]

# /sys subtrees (copied to SYS_DEPTH directory levels below the root).
SYS_ROOTS = [
    "class/net", "class/hwmon", "class/thermal", "class/dmi/id", "class/infiniband", "class/nvme",
    "class/power_supply", "class/powercap", "class/fc_host", "class/scsi_tape", "block",
    "devices/system/cpu", "devices/system/clocksource", "devices/system/edac/mc",
    "fs/bcache", "fs/btrfs", "fs/xfs",
]
SYS_DEPTH = 4

# Symlinks whose targets are copied as well, by name: how many directory
# levels of the target. A link that ends up dangling is removed.
FOLLOW_DEPTH = {
    "device": 1,  # hwmon's chip label is the resolved device path
    "subsystem": 0,  # ... and its subsystem's name (an empty dir suffices)
}
# Attributes never read: binary BARs, ROMs, write-only triggers
# (PCI VPD and EEPROM reads can take seconds on some devices.)
SKIP_NAME = re.compile(r"(resource\d*(_wc)?|rom|config|vpd|eeprom|remove|rescan|reset|new_id|remove_id|bind|unbind)$")
# Directories that only hold other links back into the tree or power state.
SKIP_DIR = {"power", "driver", "firmware_node", "of_node", "iommu", "iommu_group", "msi_irqs", "holders", "slaves"}


class Copier:
    def __init__(self, src_root, dest_root, roots, args, deadline):
        self.src_root = src_root  # "/sys" or "/proc"
        self.dest_root = dest_root
        self.roots = roots  # directories whose symlinked entries are copied whole
        self.max_files = args.max_files
        self.max_bytes = args.max_bytes
        self.max_file_bytes = args.max_file_bytes
        self.deadline = deadline
        self.files = 0
        self.bytes = 0
        self.skipped = 0
        self.links = []
        self.seen_dirs = {}  # real path -> depth copied
        self.truncated = []

    def dest(self, real):
        return os.path.join(self.dest_root, os.path.relpath(real, self.src_root))

    def full(self):
        if self.files >= self.max_files or self.bytes >= self.max_bytes or time.monotonic() > self.deadline:
            if not self.truncated:
                self.truncated.append("stopped at %d files, %d bytes" % (self.files, self.bytes))
            return True
        return False

    def copy_file(self, path):
        if self.full() or SKIP_NAME.match(os.path.basename(path)) or os.path.lexists(self.dest(path)):
            return
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            self.skipped += 1  # write-only or root-only attribute
            return
        try:
            chunks, n = [], 0
            while n < self.max_file_bytes:
                b = os.read(fd, 1 << 16)
                if not b:
                    break
                chunks.append(b)
                n += len(b)
        except OSError:
            self.skipped += 1  # EIO, EOPNOTSUPP, EINVAL: the attribute has no value here
            return
        finally:
            os.close(fd)
        data = b"".join(chunks)
        out = self.dest(path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(data)
        self.files += 1
        self.bytes += len(data)

    def copy_link(self, path, depth):
        out = self.dest(path)
        if os.path.lexists(out):
            return
        text = os.readlink(path)
        real = os.path.realpath(path)
        if os.path.isabs(text) or os.path.commonpath([real, self.src_root]) != self.src_root:
            return
        os.makedirs(os.path.dirname(out), exist_ok=True)
        os.symlink(text, out)
        self.links.append(out)
        if depth >= 0:
            self.copy_path(real, depth)

    def copy_path(self, path, depth):
        """Copies PATH (not a symlink itself unless a root) and DEPTH levels of
        directories below it."""
        if self.full():
            return
        if os.path.islink(path):
            self.copy_link(path, depth)
            return
        if os.path.isfile(path):
            self.copy_file(path)
            return
        if not os.path.isdir(path):
            return
        # A directory reached again deeper (a "device" link first, its class
        # entry later) is copied again to the larger depth.
        real = os.path.realpath(path)
        if self.seen_dirs.get(real, -1) >= depth:
            return
        self.seen_dirs[real] = depth
        os.makedirs(self.dest(path), exist_ok=True)
        try:
            names = sorted(os.listdir(path))
        except OSError:
            self.skipped += 1
            return
        for name in names:
            p = os.path.join(path, name)
            if os.path.islink(p):
                # Entries of a class dir (class/net/eth0 -> ../../devices/...)
                # are copied whole; links inside devices only by FOLLOW_DEPTH.
                self.copy_link(p, depth if path in self.roots else FOLLOW_DEPTH.get(name, -1))
            elif os.path.isdir(p):
                if depth > 0 and name not in SKIP_DIR:
                    self.copy_path(p, depth - 1)
            else:
                self.copy_file(p)

    def prune_dangling(self):
        # (exists() follows a chain of links to its end.)
        for link in [link for link in self.links if not os.path.exists(link)]:
            os.unlink(link)


def cmd_copy(args):
    dest = os.path.abspath(args.dest)
    src_proc, src_sys = os.path.realpath(args.proc), os.path.realpath(args.sys)
    deadline = time.monotonic() + args.max_seconds
    proc = Copier(src_proc, os.path.join(dest, "proc"), set(), args, deadline)
    for e in PROC_ENTRIES:
        p = os.path.join(src_proc, e)
        if e == "1/mounts" and not os.access(p, os.R_OK):
            p = os.path.join(src_proc, "self/mounts")  # node_exporter's and llmon's fallback order
        if os.path.isdir(p):
            proc.roots.add(p)
            proc.copy_path(p, SYS_DEPTH)
        elif os.path.exists(p):
            data_path = os.path.join(proc.dest_root, e)
            before = proc.files
            proc.copy_file(p)
            if proc.files > before and p != os.path.join(src_proc, e):
                os.makedirs(os.path.dirname(data_path), exist_ok=True)
                shutil.move(proc.dest(p), data_path)
    sysc = Copier(src_sys, os.path.join(dest, "sys"), {os.path.join(src_sys, r) for r in SYS_ROOTS}, args, deadline)
    for r in SYS_ROOTS:
        p = os.path.join(src_sys, r)
        if os.path.lexists(p):
            sysc.copy_path(p, SYS_DEPTH)
    sysc.prune_dangling()
    os.makedirs(os.path.join(dest, "sys", "class"), exist_ok=True)
    # udev's database: the block devices' entries (diskstats' node_disk_info).
    udev_out = os.path.join(dest, "udev", "data")
    os.makedirs(udev_out, exist_ok=True)
    udev_files = 0
    if os.path.isdir(args.udev):
        for name in sorted(os.listdir(args.udev)):
            if name.startswith("b") and udev_files < 10000:
                try:
                    shutil.copyfile(os.path.join(args.udev, name), os.path.join(udev_out, name))
                    udev_files += 1
                except OSError:
                    pass
    for what, c in (("proc", proc), ("sys", sysc)):
        print("copied /%s: %d files, %d bytes, %d unreadable skipped%s"
              % (what, c.files, c.bytes, c.skipped, ("; " + c.truncated[0]) if c.truncated else ""))
    print("copied udev data: %d files" % udev_files)
    return 0


# ---------------------------------------------------------------- compare

# node_exporter families left out of the coverage, with the reason.
EXCLUDED = [
    (re.compile(r"go_.*"), "node_exporter's Go runtime; llmon is not a Go program"),
    (re.compile(r"process_.*"), "the exporter's own process (CPU, memory, fds), different by nature"),
    (re.compile(r"promhttp_.*"), "node_exporter's HTTP handler counters"),
    (re.compile(r"node_exporter_build_info"), "node_exporter's version (llmon has llmon_build_info)"),
    (re.compile(r"node_scrape_collector_duration_seconds"), "each exporter's own collection time"),
]

# Series read from the live system at scrape time rather than from the frozen
# tree: they count as covered when llmon has them with the same labels and a
# value within the tolerance (None: value not compared).
LIVE = [
    (re.compile(r"node_time_seconds"), (5.0, 0.0), "wall clock at each exporter's scrape"),
    (re.compile(r"node_timex_(offset_seconds|frequency_adjustment_ratio|maxerror_seconds|estimated_error_seconds)"),
     None, "adjtimex(2) of the live kernel clock, which moves between the two scrapes"),
    # (size and inode totals too: ZFS and btrfs report them from the pool's
    # free space, which moves.)
    (re.compile(r"node_filesystem_(size|free|avail)_bytes|node_filesystem_files(_free)?"), (0.0, 0.01),
     "statfs(2) of the live mounts (the mount table is frozen, the filesystems are not)"),
]
# Values that differ only in the last digits printed (the same quantity
# computed in another order) count as equal.
PRINT_REL = 1e-12


def excluded(name):
    for rx, reason in EXCLUDED:
        if rx.fullmatch(name):
            return reason
    return None


def live_tolerance(name):
    for rx, tol, reason in LIVE:
        if rx.fullmatch(name):
            return True, tol, reason
    return False, None, None


def value_ok(name, a, b):
    """(equal, how): how is exact, print, live or None."""
    is_live, tol, _ = live_tolerance(name)
    if math.isnan(a) and math.isnan(b):
        return True, "exact"
    if a == b:
        return True, "exact"
    if is_live:
        if tol is None:
            return True, "live"
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
            return False, None
        return abs(a - b) <= max(tol[0], tol[1] * max(abs(a), abs(b))), "live"
    if not (math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b)):
        if abs(a - b) <= PRINT_REL * max(abs(a), abs(b)):
            return True, "print"
    return False, None


def known_reason(known, used, name, sid):
    for rx, reason, src in known:
        if rx.fullmatch(name) or (sid and rx.fullmatch(sid)):
            used.add(src)
            return reason
    return None


def cmd_compare(args):
    try:
        known = expo_diff.load_known(args.known_diffs)
        ne, _ = expo_diff.parse_page(expo_diff.load(args.node_exporter), "node_exporter")
        ll, ll_problems = expo_diff.parse_page(expo_diff.load(args.llmon), "llmon")
        succ = ne.get("node_scrape_collector_success", expo_diff.Family(""))
        ne_collectors = sorted({expo_diff.scrape_collector(l) for _, l in succ.series} - {None})
        attribution = {}
        if re.match(r"https?://", args.node_exporter):  # ?collect[]=NAME: the families of each collector
            attribution = expo_diff.collector_families(args.node_exporter, ne_collectors)
        live_ne = None
        if args.live_node_exporter:
            live_ne, _ = expo_diff.parse_page(expo_diff.load(args.live_node_exporter), "live node_exporter")
    except (expo_diff.ParseError, OSError) as e:
        print("frozen_tree: %s" % e, file=sys.stderr)
        return 2
    ll_succ = ll.get("node_scrape_collector_success", expo_diff.Family(""))
    ll_collectors = {expo_diff.scrape_collector(l) for _, l in ll_succ.series} - {None}
    family_collector = {}
    for c, fams in attribution.items():
        for f in fams or ():
            family_collector.setdefault(f, c)

    used = set()
    failures, known_hits = [], []
    total = covered = 0
    how_counts = {"exact": 0, "print": 0, "live": 0}
    missing = {}  # collector -> {family: (missing series, all series)}
    excl_counts = {}
    for name in sorted(ne):
        fa = ne[name]
        if not fa.series:
            continue
        reason = excluded(name)
        if reason:
            excl_counts[reason] = excl_counts.get(reason, 0) + len(fa.series)
            continue
        fb = ll.get(name)
        total += len(fa.series)
        col = family_collector.get(name, "(unattributed)")
        if fb is None or not fb.series:
            missing.setdefault(col, {})[name] = (len(fa.series), len(fa.series))
            continue
        if (fa.type or "untyped") != (fb.type or "untyped"):
            msg = "TYPE differs: %s: node_exporter=%s llmon=%s" % (name, fa.type, fb.type)
            r = known_reason(known, used, name, None)
            (known_hits if r else failures).append(msg + ("  [known: %s]" % r if r else ""))
        if fa.help != fb.help:
            msg = "HELP differs: %s:\n    node_exporter: %r\n    llmon:         %r" % (name, fa.help, fb.help)
            r = known_reason(known, used, name, None)
            (known_hits if r else failures).append(msg + ("  [known: %s]" % r if r else ""))
        n_missing = 0
        for key, va in fa.series.items():
            sid = expo_diff.series_id(*key)
            if key not in fb.series:
                n_missing += 1
                continue
            ok, how = value_ok(key[0], va, fb.series[key])
            if ok:
                covered += 1
                how_counts[how] += 1
                continue
            msg = "value differs: %s  node_exporter=%s llmon=%s" % (sid, expo_diff.fmt(va), expo_diff.fmt(fb.series[key]))
            r = known_reason(known, used, name, sid)
            (known_hits if r else failures).append(msg + ("  [known: %s]" % r if r else ""))
        # Series llmon has and node_exporter lacks in a family both have
        # (a device or mount llmon should have filtered out, another label
        # value): a failure, except the collectors node_exporter does not run.
        extra = [k for k in fb.series if k not in fa.series
                 and not (name == "node_scrape_collector_success"
                          and expo_diff.scrape_collector(k[1]) not in ne_collectors)]
        for key in extra:
            sid = expo_diff.series_id(*key)
            msg = "series only on llmon: %s %s" % (sid, expo_diff.fmt(fb.series[key]))
            r = known_reason(known, used, name, sid)
            (known_hits if r else failures).append(msg + ("  [known: %s]" % r if r else ""))
        if n_missing and name == "node_scrape_collector_success":
            # A collector llmon does not run: listed under that collector.
            for key in fa.series:
                if key not in fb.series:
                    fams = missing.setdefault(expo_diff.scrape_collector(key[1]) or col, {})
                    fams[name] = (fams.get(name, (0, 0))[0] + 1, len(fa.series))
            continue
        if n_missing:
            missing.setdefault(col, {})[name] = (n_missing, len(fa.series))
            examples = [expo_diff.series_id(*k) for k in fa.series if k not in fb.series][: args.show]
            theirs = [expo_diff.series_id(*k) for k in list(fb.series)[: args.show]]
            print("series of %s llmon lacks (%d of %d), e.g.\n      %s\n    llmon has e.g.\n      %s"
                  % (name, n_missing, len(fa.series), "\n      ".join(examples), "\n      ".join(theirs)))
    for p in ll_problems:
        failures.append("llmon page: " + p)

    print("\nnot counted (node_exporter series by reason):")
    for reason, n in sorted(excl_counts.items()):
        print("  %5d  %s" % (n, reason))
    print("counted with a tolerance (read live, not from the frozen tree):")
    for rx, tol, reason in LIVE:
        print("  %s: %s (%s)" % (rx.pattern, "value not compared" if tol is None else "abs %g / rel %g" % tol, reason))

    if missing:
        print("\nmissing from llmon, by node_exporter collector (series missing/of family):")
        only_success = sorted(c for c, f in missing.items() if list(f) == ["node_scrape_collector_success"])
        if only_success:
            print("  %d collectors llmon does not run, with no series here but node_scrape_collector_success: %s"
                  % (len(only_success), ", ".join(only_success)))
        for col in sorted(missing, key=lambda c: (-sum(m for m, _ in missing[c].values()), c)):
            fams = missing[col]
            if col in only_success:
                continue
            n = sum(m for m, _ in fams.values())
            state = "llmon runs it" if col in ll_collectors else "not in llmon"
            print("  %s [%s] %d series: %s" % (col, state, n,
                  ", ".join("%s (%d/%d)" % (f, m, a) for f, (m, a) in sorted(fams.items(), key=lambda x: -x[1][0]))))
    if live_ne is not None:
        # Series (by labels; values move) node_exporter shows live but not on
        # the copy: what the copy misses. A note, not a failure.
        gaps = []
        for n, f in sorted(live_ne.items()):
            if excluded(n) or not f.series:
                continue
            frozen = ne.get(n).series if n in ne else {}
            lost = [k for k in f.series if k not in frozen]
            if lost:
                gaps.append("%s (%d of %d, e.g. %s)" % (n, len(lost), len(f.series), expo_diff.series_id(*lost[0])))
        print("\nseries node_exporter shows on the live system but not on the frozen copy (copy gaps): %s"
              % ("\n  " + "\n  ".join(gaps) if gaps else "none"))
    if known_hits:
        print("\nKNOWN DIFFERENCES (%s):" % args.known_diffs)
        for k in known_hits:
            print("  " + k)
    stale = [src for _, _, src in known if src not in used]
    if stale:
        print("\nknown-diffs entries that matched nothing (stale?): %s" % ", ".join(stale))
    if failures:
        print("\nFAILURES:")
        for f in failures:
            print("  " + f)
    cov = covered / total if total else 0.0
    print("\ncoverage: %d of %d node_exporter series (%.1f %%) present in llmon with equal values "
          "(%d exact, %d equal as printed, %d live within tolerance); %d failures; minimum %.1f %%"
          % (covered, total, 100 * cov, how_counts["exact"], how_counts["print"], how_counts["live"],
             len(failures), 100 * args.min_coverage))
    if failures:
        return 1
    if cov < args.min_coverage:
        print("coverage below the minimum")
        return 1
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("copy", help="copy /proc and /sys into DEST")
    c.add_argument("dest")
    c.add_argument("--proc", default="/proc", help="procfs to copy (default /proc)")
    c.add_argument("--sys", default="/sys", help="sysfs to copy (default /sys)")
    c.add_argument("--udev", default="/run/udev/data")
    c.add_argument("--max-files", type=int, default=100000)
    c.add_argument("--max-bytes", type=int, default=256 << 20)
    c.add_argument("--max-file-bytes", type=int, default=64 << 20)
    c.add_argument("--max-seconds", type=float, default=120.0)
    m = sub.add_parser("compare", help="coverage of node_exporter's page by llmon's")
    m.add_argument("--node-exporter", required=True, help="node_exporter's /metrics URL on the frozen tree")
    m.add_argument("--llmon", required=True, help="llmon's /metrics URL or file")
    m.add_argument("--live-node-exporter", help="node_exporter's page on the live system (reports copy gaps)")
    m.add_argument("--known-diffs")
    m.add_argument("--min-coverage", type=float, default=0.95)
    m.add_argument("--show", type=int, default=4)
    args = p.parse_args(argv)
    return cmd_copy(args) if args.cmd == "copy" else cmd_compare(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
