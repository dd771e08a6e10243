#!/usr/bin/env python3
"""Summarises the results of bench/tsdb_compare.sh (its $SCRATCH/results directory) as markdown
tables, with each ratio taken against the peer measured in the same run. Prints only what the
results hold (a step that did not run is left out); nothing here is a measured number itself.
Usage: tsdb_report.py RESULTS_DIR
"""
import json, os, re, statistics, sys

R = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tsdb_compare/results"


def path(name):
    return os.path.join(R, name)


def have(*names):
    return all(os.path.exists(path(n)) and os.path.getsize(path(n)) > 0 for n in names)


def jload(name):
    with open(path(name)) as f:
        return json.load(f)


def jlines(name):
    with open(path(name)) as f:
        return [json.loads(l) for l in f if l.strip().startswith("{")]


def kv_lines(name):
    """'TAG k=v k=v' lines -> {TAG: {k: v}}."""
    out = {}
    with open(path(name)) as f:
        for line in f:
            parts = line.split()
            if parts:
                out[parts[0]] = {k: v for k, v in re.findall(r"(\S+?)=(\S+)", line)}
    return out


def num(x):
    return float(str(x).strip('"'))


def f3(x):
    return f"{x:.3f}"


def ratio(a, b):
    return f"{a / b:.2f}" if b else "n/a"


def table(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    print()


def size_section():
    rows = []
    for tag in ("real", "synth"):
        need = (f"llmon_inspect_{tag}.json", f"llmon_du_{tag}.txt", f"vm_{tag}.txt", f"prom_blocks_{tag}.json",
                f"prom_du_{tag}.txt")
        if not have(*need):
            continue
        ll = jload(f"llmon_inspect_{tag}.json")
        ll_du = num(open(path(f"llmon_du_{tag}.txt")).read())
        vm = kv_lines(f"vm_{tag}.txt")
        pb = jload(f"prom_blocks_{tag}.json")
        p_du = num(open(path(f"prom_du_{tag}.txt")).read())
        n = ll["samples"]
        disk = ll["bytes_on_disk"]

        def vm_bps(stage):
            s = vm[stage]
            return (num(s["vm_data_size_bytes(storage)"]) + num(s["vm_data_size_bytes(indexdb)"])) / num(s["vm_rows"])

        vm_merge = vm_bps("after_force_merge")
        vm_du = num(vm["after_force_merge"]["du_data_dir"]) / num(vm["after_force_merge"]["vm_rows"])
        p_all = (pb["chunk_bytes"] + pb["index_bytes"]) / pb["samples"]
        llb = disk["total"] / n
        vmv, changed = "", ""
        if have(f"llmon_inspect_{tag}_vmvalues.json", f"vm_roundtrip_{tag}.json"):
            lv = jload(f"llmon_inspect_{tag}_vmvalues.json")
            rt = jlines(f"vm_roundtrip_{tag}.json")[0]
            vmv = f"{f3(lv['bytes_per_sample'])} ({ratio(lv['bytes_per_sample'], vm_merge)})"
            changed = f"{rt['changed_pct']} % (max rel. {rt['max_rel_change']:.1e})"
        rows.append([
            tag, ll["series"], f"{n} / {vm['after_force_merge']['vm_rows']} / {pb['samples']}",
            f"{f3(llb)} ({f3(disk['chunks'] / n)} + {f3(disk['series'] / n)} + {f3(disk['wal'] / n)})",
            f3(ll_du / n), f3(vm_bps("after_flush")), f3(vm_merge), f3(vm_du),
            f3(pb["chunk_bytes"] / pb["samples"]), f3(p_all), f3(p_du / pb["samples"]),
            ratio(llb, vm_merge), ratio(llb, p_all), ratio(ll_du / n, vm_du), changed, vmv,
        ])
    if not rows:
        return
    print("### Bytes per sample on disk (index included)\n")
    table(["input", "series", "samples llmon / VM / Prom", "llmon: all files (chunks + series log + WAL)", "llmon du",
           "VM after flush (data+indexdb)", "VM after merge", "VM du", "Prom chunks", "Prom chunks+index",
           "Prom du", "llmon / VM (merged)", "llmon / Prom (chunks+index)", "du llmon / du VM",
           "values VM gave back changed", "llmon on VM's values (/ VM)"], rows)
    if have("real_recording.txt"):
        print("Real recording: " + open(path("real_recording.txt")).read().strip())
        if have("real_clean.txt"):
            print("; " + open(path("real_clean.txt")).read().strip())
        print()


def med(rows, key):
    return statistics.median(r[key] for r in rows)


def paired(rs, pt):
    """Ratios of run i to promtool's run i (they ran back to back), as min-max."""
    rr = [a["samples_per_cpu_s"] / b["samples_per_cpu_s"] for a, b in zip(rs, pt)]
    return f"{min(rr):.2f}-{max(rr):.2f}" if rr else ""


def write_section():
    if not have("write_promtool.jsonl", "write_llmon_promtool.jsonl"):
        return
    pt = jlines("write_promtool.jsonl")
    sets = [("promtool tsdb bench write", pt), ("llmon, promtool shape", jlines("write_llmon_promtool.jsonl"))]
    if have("write_llmon_cycle.jsonl"):
        sets.append(("llmon, agent shape (1 commit/scrape)", jlines("write_llmon_cycle.jsonl")))
    base_cpu, base_wall = med(pt, "samples_per_cpu_s"), med(pt, "samples_per_s_wall")
    rows = []
    for name, rs in sets:
        if not rs:
            continue
        cpu = med(rs, "samples_per_cpu_s")
        wall = med(rs, "samples_per_s_wall")
        rows.append([
            name, len(rs), f"{rs[0]['series']} x {rs[0]['scrapes']}", f"{cpu / 1e6:.2f}",
            f"{min(r['samples_per_cpu_s'] for r in rs) / 1e6:.2f}-{max(r['samples_per_cpu_s'] for r in rs) / 1e6:.2f}",
            f"{wall / 1e6:.2f}", f"{med(rs, 'ingest_cpu_s'):.1f}", f"{med(rs, 'peak_rss_kb') / 1024:.0f}",
            f"{med(rs, 'disk_bytes') / 1e6:.0f}", ratio(cpu, base_cpu), ratio(wall, base_wall), paired(rs, pt),
        ])
    print("### Append throughput (medians of the runs; runs interleaved: promtool, llmon x2, ...)\n")
    table(["writer", "runs", "series x scrapes", "M samples / CPU s", "range", "M samples / wall s", "ingest CPU s",
           "peak RSS MiB", "on disk after close, MB", "per CPU s vs promtool", "per wall s vs promtool",
           "per CPU s vs promtool, run by run"], rows)


def rss_section():
    if not have("hist_rss.txt"):
        return
    rs = kv_lines("hist_rss.txt")
    rows = []
    for stage, label in (("start", "10 s after ready"), ("60s", "after 60 s more")):
        a, p = rs.get(f"llmon_{stage}"), rs.get(f"prom_{stage}")
        if a and p:
            rows.append([label, a["VmRSS_kB"], a["VmHWM_kB"], f"{a['RssAnon_kB']} / {a['RssFile_kB']}", p["VmRSS_kB"],
                         p["VmHWM_kB"], f"{p['RssAnon_kB']} / {p['RssFile_kB']}",
                         ratio(num(a["VmRSS_kB"]), num(p["VmRSS_kB"]))])
    a, p = rs.get("llmon_after_read"), rs.get("prom_after_read")
    rd = jlines("hist_llmon_read.json")[0] if have("hist_llmon_read.json") else None
    if a and p and rd:
        both = num(a["VmRSS_kB"]) + rd["hwm_kb_after_read"]
        rows.append(["after reading all 24 h (llmon: agent + reader's VmHWM)", f"{a['VmRSS_kB']} + {rd['hwm_kb_after_read']}",
                     a["VmHWM_kB"], f"{a['RssAnon_kB']} / {a['RssFile_kB']}", p["VmRSS_kB"], p["VmHWM_kB"],
                     f"{p['RssAnon_kB']} / {p['RssFile_kB']}", ratio(both, num(p["VmRSS_kB"]))])
    print("### RSS with 24 h of 1 s history (kB)\n")
    table(["when", "llmon agent VmRSS", "VmHWM", "anon / file", "Prometheus VmRSS", "VmHWM", "anon / file",
           "llmon / Prometheus (VmRSS)"], rows)
    notes = []
    if have("hist.txt"):
        notes.append("history: " + open(path("hist.txt")).read().strip())
    if have("hist_llmon_inspect.json"):
        li = jload("hist_llmon_inspect.json")
        notes.append(f"llmon store: {li['series']} series, {li['samples']} samples, {li['bytes_per_sample']:.3f} B/sample")
    if have("hist_llmon_import.txt"):
        notes.append("llmon import: " + " ".join(open(path("hist_llmon_import.txt")).read().split()[-4:]))
    if have("hist_prom_blocks.json"):
        pb = jload("hist_prom_blocks.json")
        notes.append(f"Prometheus blocks: {pb['blocks']} blocks, {pb['samples']} samples, "
                     f"{pb['chunk+index_bytes_per_sample']} B/sample incl. index")
    if have("hist_prom_create.txt"):
        notes.append("promtool create-blocks: " + open(path("hist_prom_create.txt")).read().strip().splitlines()[-1])
    if rd:
        notes.append(f"llmon reader: {rd['series']} series, {rd['samples']} samples in {rd['read_s']:.2f} s "
                     f"({rd['samples_per_s'] / 1e6:.1f} M/s), open {rd['open_s']:.2f} s, "
                     f"VmHWM {rd['hwm_kb_after_open']} kB after open, {rd['hwm_kb_after_read']} kB after read")
    if have("hist_prom_read.json"):
        q = jlines("hist_prom_read.json")[0]
        notes.append(f"Prometheus reader: {q['names']} count_over_time query_range (step {q['step_s']} s), "
                     f"{q['series']} series, {q['points']} points, {q['samples_counted']} samples counted in "
                     f"{q['seconds']:.2f} s ({q['samples_per_s'] / 1e6:.2f} M/s), slowest query {q['slowest_query_ms']} ms")
    for n in notes:
        print(f"- {n}")
    print()


def read_section():
    for name, title in (("read_synth.json", "synthetic week"), ("read_hist.json", "24 h store of the rss step")):
        if not have(name):
            continue
        d = jload(name)
        rows = []
        for b in d["benchmarks"]:
            if b.get("aggregate_name", "median") != "median" or b.get("error_occurred"):
                continue
            ips = b.get("items_per_second")
            rows.append([b["run_name"], f"{b['real_time']:.3f} {b['time_unit']}", f"{b['cpu_time']:.3f} {b['time_unit']}",
                         f"{ips / 1e6:.1f}" if ips else "", f"{b['samples']:.0f}" if "samples" in b else "",
                         f"{b['resident_pages_after_drop']:.0f}" if "resident_pages_after_drop" in b else ""])
        print(f"### Reads ({title}; medians of {d['benchmarks'][0].get('repetitions', 1)} repetitions)\n")
        table(["benchmark", "wall (latency)", "CPU", "M samples / CPU s", "samples", "pages resident after drop"], rows)


def env_section():
    if have("env.txt"):
        print("Environment (per step, start and end):\n")
        print("```")
        print(open(path("env.txt")).read().strip())
        print("```")


size_section()
write_section()
rss_section()
read_section()
env_section()
