#!/usr/bin/env python3
"""Writes the dashboards of deploy/grafana/ (the JSON files are its output; edit this, then run it).

  python3 deploy/grafana/generate.py           # rewrite the *.json next to this file
  python3 deploy/grafana/generate.py --check   # exit 1 when a committed file differs (ctest does this)

Each dashboard is Grafana's own JSON model (schemaVersion 39, Grafana 10.x/11.x):
a `datasource` variable of type prometheus that every panel and variable uses,
query variables through label_values(), units on every panel, `$__rate_interval`
in every rate(). Metric names are llmon's (docs/metrics.md): node_exporter 1.5,
dcgm-exporter's DCGM_FI_*, llmon_gpu_*; the trainer's histograms under a
`prefix` textbox variable; vLLM's vllm:*. What each one shows: README.md.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DS = {"type": "prometheus", "uid": "${datasource}"}
# Interfaces that carry no fleet traffic: loopback, containers' veth pairs, bridges.
NET_DEV = 'device!~"lo|veth.*|docker.*|cali.*|flannel.*|cni.*|virbr.*|br-.*"'
FS = 'fstype!~"tmpfs|overlay|squashfs|ramfs|nsfs"'
# Grafana's custom units ("suffix:<text>") where it has none of its own.
STEPS = "suffix: steps/s"
TOKENS = "suffix: tok/s"

# ------------------------------------------------------------------ variables


def datasource_var():
    return {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
            "current": {}, "hide": 0, "includeAll": False, "multi": False, "options": [], "refresh": 1,
            "regex": "", "skipUrlSync": False}


def query_var(name, label, query, regex="", hide=0, sort=1, multi=True):
    """A label_values() variable, refreshed on time-range change, multi-value with All."""
    return {"name": name, "label": label, "type": "query", "datasource": DS,
            "definition": query, "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
            "current": {}, "hide": hide, "includeAll": multi, "multi": multi, "options": [], "refresh": 2,
            "regex": regex, "skipUrlSync": False, "sort": sort}


def textbox_var(name, label, value, description):
    return {"name": name, "label": label, "type": "textbox", "query": value, "description": description,
            "current": {"selected": False, "text": value, "value": value},
            "options": [{"selected": True, "text": value, "value": value}], "hide": 0, "skipUrlSync": False}


# Hosts of the selected instances: "host:port" -> "host", to find the same
# node's GPUs by dcgm-exporter's Hostname label (llmon sets it to the node name).
HOST_REGEX = "/^([^:]+)/"

# --------------------------------------------------------------------- panels


def target(expr, legend="", ref="A", instant=False, fmt=None, interval=None):
    t = {"datasource": DS, "editorMode": "code", "expr": expr, "legendFormat": legend or "__auto", "refId": ref}
    if instant:
        t.update({"instant": True, "range": False})
    else:
        t.update({"instant": False, "range": True})
    if fmt:
        t["format"] = fmt
    if interval:
        t["interval"] = interval
    return t


def targets(*pairs, **kw):
    """targets((expr, legend), ...): refIds A, B, C, ..."""
    return [target(e, lg, chr(ord("A") + i), **kw) for i, (e, lg) in enumerate(pairs)]


def thresholds(*steps, base="green"):
    """steps: (value, colour) above the base colour."""
    out = [{"color": base, "value": None}]
    out += [{"color": c, "value": v} for v, c in steps]
    return {"mode": "absolute", "steps": out}


def timeseries(title, desc, tgts, unit, lo=None, hi=None, steps=(), stack=False, base="green"):
    defaults = {"unit": unit, "custom": {
        "drawStyle": "line", "lineWidth": 1, "fillOpacity": 10 if not stack else 40, "showPoints": "never",
        "spanNulls": False, "axisSoftMin": 0 if lo is None else lo,
        "stacking": {"mode": "normal" if stack else "none", "group": "A"},
        "thresholdsStyle": {"mode": "line" if steps else "off"}}, "thresholds": thresholds(*steps, base=base)}
    if lo is not None:
        defaults["min"] = lo
    if hi is not None:
        defaults["max"] = hi
    return {"type": "timeseries", "title": title, "description": desc, "datasource": DS, "targets": tgts,
            "fieldConfig": {"defaults": defaults, "overrides": []},
            "options": {"legend": {"displayMode": "table", "placement": "right", "showLegend": True,
                                   "calcs": ["mean", "max", "lastNotNull"]},
                        "tooltip": {"mode": "multi", "sort": "desc"}}}


def stat(title, desc, expr, unit, steps=(), mappings=None, legend="", base="green"):
    defaults = {"unit": unit, "thresholds": thresholds(*steps, base=base), "color": {"mode": "thresholds"}}
    if mappings:
        defaults["mappings"] = mappings
    return {"type": "stat", "title": title, "description": desc, "datasource": DS,
            "targets": [target(expr, legend, instant=True)],
            "fieldConfig": {"defaults": defaults, "overrides": []},
            "options": {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                        "colorMode": "background", "graphMode": "none", "justifyMode": "auto",
                        "orientation": "auto", "textMode": "auto"}}


def heatmap(title, desc, expr, unit, counted):
    """Classic histogram buckets as a heatmap: increase per $__interval, at least one minute
    (four 15 s scrapes: increase() needs two samples inside the window)."""
    return {"type": "heatmap", "title": title, "description": desc, "datasource": DS, "interval": "1m",
            "targets": [target(expr, "{{le}}", fmt="heatmap")],
            "fieldConfig": {"defaults": {"custom": {"hideFrom": {"legend": False, "tooltip": False, "viz": False},
                                                    "scaleDistribution": {"type": "linear"}}},
                            "overrides": []},
            "options": {"calculate": False, "cellGap": 1, "cellValues": {"unit": "short"},
                        "color": {"mode": "scheme", "scheme": "Oranges", "exponent": 0.5, "steps": 64,
                                  "fill": "dark-orange", "reverse": False},
                        "exemplars": {"color": "rgba(255,0,255,0.7)"}, "filterValues": {"le": 1e-9},
                        "legend": {"show": True}, "rowsFrame": {"layout": "auto", "value": counted},
                        "tooltip": {"mode": "single", "showColorScale": False, "yHistogram": True},
                        "yAxis": {"axisPlacement": "left", "reverse": False, "unit": unit}}}


def row(title):
    return {"type": "row", "title": title, "collapsed": False, "panels": []}


def layout(items):
    """items: rows and (panel, width, height); assigns ids and gridPos left to right, top to bottom."""
    out, x, y, line_h, pid = [], 0, 0, 0, 1
    for it in items:
        if isinstance(it, dict):  # a row
            if x:
                y, x = y + line_h, 0
            it = dict(it, id=pid, gridPos={"h": 1, "w": 24, "x": 0, "y": y})
            y += 1
            line_h = 0
        else:
            panel, w, h = it
            if x + w > 24:
                y, x, line_h = y + line_h, 0, 0
            it = dict(panel, id=pid, gridPos={"h": h, "w": w, "x": x, "y": y})
            x += w
            line_h = max(line_h, h)
        pid += 1
        out.append(it)
    return out


def dashboard(uid, title, desc, tags, variables, items, time_from="now-6h"):
    return {
        "annotations": {"list": [{"builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                                  "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
                                  "name": "Annotations & Alerts", "type": "dashboard"}]},
        "description": desc,
        "editable": True,
        "fiscalYearStartMonth": 0,
        "graphTooltip": 1,
        "id": None,
        "links": [{"asDropdown": True, "icon": "external link", "includeVars": False, "keepTime": True,
                   "tags": ["llmon"], "targetBlank": False, "title": "llmon dashboards", "type": "dashboards"}],
        "panels": layout(items),
        "refresh": "1m",
        "schemaVersion": 39,
        "tags": ["llmon"] + tags,
        "templating": {"list": [datasource_var()] + variables},
        "time": {"from": time_from, "to": "now"},
        "timepicker": {},
        "timezone": "browser",
        "title": title,
        "uid": uid,
        "version": 1,
        "weekStart": "",
    }


def q(p, by, metric, sel, rng="$__rate_interval"):
    """histogram_quantile(p, sum by (by, le) (rate(metric_bucket{sel}[rng])))."""
    by = (by + ", le") if by else "le"
    return "histogram_quantile(%s, sum by (%s) (rate(%s_bucket{%s}[%s])))" % (p, by, metric, sel, rng)


def q_renamed(p, by, new, old, sel, rng="$__rate_interval"):
    """q() over a histogram vLLM renamed: per series the new name's buckets where a server has them,
    else the old name's (a server exposing both has the same labels on both: `or` keeps the new)."""
    by = (by + ", le") if by else "le"
    return "histogram_quantile(%s, sum by (%s) (rate(%s_bucket{%s}[%s]) or rate(%s_bucket{%s}[%s])))" % (
        p, by, new, sel, rng, old, sel, rng)


# ---------------------------------------------------------------- dashboards


def node_overview():
    n = 'job=~"$job",instance=~"$instance"'
    g = "{%s}" % n
    used = "DCGM_FI_DEV_FB_USED%s / (DCGM_FI_DEV_FB_USED%s + DCGM_FI_DEV_FB_FREE%s)" % (g, g, g)
    gpu_legend = "{{instance}} GPU {{gpu}}"
    up_map = [{"type": "value", "options": {"0": {"text": "DOWN", "color": "red", "index": 1},
                                            "1": {"text": "UP", "color": "green", "index": 0}}}]
    items = [
        row("Fleet"),
        (stat("Targets up", "up of each selected target (0: the last scrape failed).", "up%s" % g, "none",
              steps=(), mappings=up_map, legend="{{instance}}"), 8, 4),
        (stat("GPUs reporting", "GPUs with a utilisation sample.", "count(DCGM_FI_DEV_GPU_UTIL%s)" % g, "none"), 3, 4),
        (stat("Mean GPU utilisation", "Mean over the selected GPUs; < 30 % at peak means starved or idle GPUs.",
              "avg(DCGM_FI_DEV_GPU_UTIL%s)" % g, "percent", steps=((30, "green"),), base="orange"), 3, 4),
        (stat("GPU memory in use", "Framebuffer used over used + free, all selected GPUs.",
              "sum(DCGM_FI_DEV_FB_USED%s) / sum(DCGM_FI_DEV_FB_USED%s + DCGM_FI_DEV_FB_FREE%s)" % (g, g, g),
              "percentunit", steps=((0.85, "orange"), (0.9, "red"))), 3, 4),
        (stat("Hottest GPU", "Warn at 80 °C; GPUs throttle from about 85 °C.", "max(DCGM_FI_DEV_GPU_TEMP%s)" % g,
              "celsius", steps=((80, "orange"), (85, "red"))), 3, 4),
        (stat("GPU power", "Sum of the selected GPUs' power draw.", "sum(DCGM_FI_DEV_POWER_USAGE%s)" % g, "watt"),
         4, 4),
        (stat("Mean GPU utilisation over the range", "Mean over the dashboard's time range: what the GPUs were "
              "paid for and did.", "avg(avg_over_time(DCGM_FI_DEV_GPU_UTIL%s[$__range]))" % g, "percent",
              steps=((30, "green"),), base="orange"), 6, 4),
        (stat("Xid errors since the agent started", "Per GPU and Xid (llmon_gpu_xid_errors_total, from the "
              "driver's event stream); 48, 63, 64, 74, 79, 92, 94, 95 usually mean draining the GPU.",
              "sum by (instance, gpu, xid) (llmon_gpu_xid_errors_total%s) > 0" % g, "none",
              steps=((1, "red"),), legend="{{instance}} GPU {{gpu}} Xid {{xid}}"), 18, 4),
        row("GPUs"),
        (timeseries("GPU utilisation", "Share of time a kernel ran, per GPU (DCGM_FI_DEV_GPU_UTIL).",
                    targets(("DCGM_FI_DEV_GPU_UTIL%s" % g, gpu_legend)), "percent", 0, 100,
                    steps=((30, "orange"),)), 12, 8),
        (timeseries("GPU utilisation per node", "Mean over each node's GPUs.",
                    targets(("avg by (instance) (DCGM_FI_DEV_GPU_UTIL%s)" % g, "{{instance}}")), "percent", 0, 100),
         12, 8),
        (timeseries("Tensor core activity", "Ratio of cycles the tensor pipe is active (DCGM profiling; GPM on "
                    "Hopper): low while utilisation is high means memory- or communication-bound kernels.",
                    targets(("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE%s" % g, gpu_legend)), "percentunit", 0, 1), 12, 8),
        (timeseries("GPU memory used", "Framebuffer used / (used + free) per GPU; OOM risk above 90 %.",
                    targets((used, gpu_legend)), "percentunit", 0, 1, steps=((0.85, "orange"), (0.9, "red"))),
         12, 8),
        (timeseries("GPU temperature", "Core and HBM temperature per GPU.",
                    targets(("DCGM_FI_DEV_GPU_TEMP%s" % g, gpu_legend),
                            ("DCGM_FI_DEV_MEMORY_TEMP%s" % g, "{{instance}} GPU {{gpu}} HBM")), "celsius",
                    steps=((80, "orange"), (85, "red"))), 12, 8),
        (timeseries("GPU power", "Power draw per GPU against the enforced limit.",
                    targets(("DCGM_FI_DEV_POWER_USAGE%s" % g, gpu_legend),
                            ("DCGM_FI_DEV_ENFORCED_POWER_LIMIT%s" % g, "{{instance}} GPU {{gpu}} limit")), "watt"),
         12, 8),
        (timeseries("GPUs throttled, by reason", "GPUs per node with each clock event (throttle) reason active "
                    "(llmon_gpu_clock_event_reason_active; idle and settings reasons left out).",
                    targets(('sum by (instance, reason) (llmon_gpu_clock_event_reason_active{%s,'
                             'reason!~"gpu_idle|applications_clocks_setting|display_clock_setting"})' % n,
                             "{{instance}} {{reason}}")), "none", 0), 12, 8),
        (timeseries("Time clocks held down", "Share of time the power limit and thermal limits held the clocks "
                    "down (DCGM_FI_DEV_*_VIOLATION, ns).",
                    targets(("rate(DCGM_FI_DEV_POWER_VIOLATION%s[$__rate_interval]) / 1e9" % g,
                             "{{instance}} GPU {{gpu}} power"),
                            ("rate(DCGM_FI_DEV_THERMAL_VIOLATION%s[$__rate_interval]) / 1e9" % g,
                             "{{instance}} GPU {{gpu}} thermal")), "percentunit", 0), 12, 8),
        row("Host"),
        (timeseries("CPU busy", "Mean over each node's CPUs.",
                    targets(('1 - avg by (instance) (rate(node_cpu_seconds_total{%s,mode="idle"}[$__rate_interval]))'
                             % n, "{{instance}}")), "percentunit", 0, 1), 8, 8),
        (timeseries("Busiest CPU", "The busiest core of each node: near 100 % for minutes means the input "
                    "pipeline (tokenising, data loading) holds the GPUs back.",
                    targets(('max by (instance) (1 - rate(node_cpu_seconds_total{%s,mode="idle"}'
                             '[$__rate_interval]))' % n, "{{instance}}")), "percentunit", 0, 1,
                    steps=((0.9, "orange"),)), 8, 8),
        (timeseries("CPU iowait", "Mean share of time the CPUs waited on I/O (data loading, checkpoints).",
                    targets(('avg by (instance) (rate(node_cpu_seconds_total{%s,mode="iowait"}[$__rate_interval]))'
                             % n, "{{instance}}")), "percentunit", 0), 8, 8),
        (timeseries("Host memory used", "1 - MemAvailable / MemTotal.",
                    targets(("1 - node_memory_MemAvailable_bytes%s / node_memory_MemTotal_bytes%s" % (g, g),
                             "{{instance}}")), "percentunit", 0, 1, steps=((0.9, "orange"),)), 8, 8),
        (timeseries("Network", "Bytes per second per node, physical interfaces.",
                    targets(("sum by (instance) (rate(node_network_receive_bytes_total{%s,%s}[$__rate_interval]))"
                             % (n, NET_DEV), "{{instance}} receive"),
                            ("sum by (instance) (rate(node_network_transmit_bytes_total{%s,%s}[$__rate_interval]))"
                             % (n, NET_DEV), "{{instance}} transmit")), "Bps"), 8, 8),
        (timeseries("Disk throughput", "Read and written bytes per second per node (checkpoints want >= 200 MB/s).",
                    targets(("sum by (instance) (rate(node_disk_read_bytes_total%s[$__rate_interval]))" % g,
                             "{{instance}} read"),
                            ("sum by (instance) (rate(node_disk_written_bytes_total%s[$__rate_interval]))" % g,
                             "{{instance}} written")), "Bps"), 8, 8),
        (timeseries("Busiest disk", "Share of time the busiest device of each node had I/O in flight.",
                    targets(("max by (instance) (rate(node_disk_io_time_seconds_total%s[$__rate_interval]))" % g,
                             "{{instance}}")), "percentunit", 0, 1), 12, 8),
        (timeseries("Filesystem space free", "Available to non-root users over size, per mount point.",
                    targets(("node_filesystem_avail_bytes{%s,%s} / node_filesystem_size_bytes{%s,%s}" % (n, FS, n, FS),
                             "{{instance}} {{mountpoint}}")), "percentunit", 0, 1), 12, 8),
    ]
    variables = [query_var("job", "Job", "label_values(node_uname_info, job)"),
                 query_var("instance", "Node", 'label_values(node_uname_info{job=~"$job"}, instance)')]
    return dashboard("llmon-node-overview", "LLM node overview",
                     "GPU and host health of every node: utilisation, memory, temperature, power, throttling, CPU, "
                     "RAM, network, disks, and whether each target is up.", ["gpu", "node"], variables, items)


def gpu_memory():
    g = '{job=~"$job",instance=~"$instance",gpu=~"$gpu"}'
    legend = "{{instance}} GPU {{gpu}}"
    mib = " * 1048576"
    items = [
        row("Per node"),
        (timeseries("GPU memory used per node", "Sum of the node's framebuffer used (DCGM_FI_DEV_FB_USED, MiB).",
                    targets(("sum by (instance) (DCGM_FI_DEV_FB_USED%s)%s" % (g, mib), "{{instance}} used"),
                            ("sum by (instance) (DCGM_FI_DEV_FB_USED%s + DCGM_FI_DEV_FB_FREE%s)%s" % (g, g, mib),
                             "{{instance}} capacity")), "bytes", 0), 12, 8),
        (timeseries("GPU memory free per node", "Sum of the node's framebuffer free.",
                    targets(("sum by (instance) (DCGM_FI_DEV_FB_FREE%s)%s" % (g, mib), "{{instance}}")), "bytes", 0),
         12, 8),
        (timeseries("Smallest headroom per node", "Free memory of each node's fullest GPU: a data-parallel job "
                    "fails when its first GPU runs out.",
                    targets(("min by (instance) (DCGM_FI_DEV_FB_FREE%s)%s" % (g, mib), "{{instance}}")), "bytes", 0),
         12, 8),
        (timeseries("GPU memory used share per node", "Used / (used + free), all of the node's GPUs.",
                    targets(("sum by (instance) (DCGM_FI_DEV_FB_USED%s) / sum by (instance) (DCGM_FI_DEV_FB_USED%s + "
                             "DCGM_FI_DEV_FB_FREE%s)" % (g, g, g), "{{instance}}")), "percentunit", 0, 1,
                    steps=((0.85, "orange"), (0.9, "red"))), 12, 8),
        row("Per GPU"),
        (timeseries("GPU memory used", "Framebuffer used per GPU.",
                    targets(("DCGM_FI_DEV_FB_USED%s%s" % (g, mib), legend)), "bytes", 0), 12, 8),
        (timeseries("Headroom to OOM", "Framebuffer free per GPU: what the next allocation (activations, KV "
                    "cache) can still take.", targets(("DCGM_FI_DEV_FB_FREE%s%s" % (g, mib), legend)), "bytes", 0),
         12, 8),
        (timeseries("GPU memory used share", "Used / (used + free) per GPU; OOM risk above 90 %.",
                    targets(("DCGM_FI_DEV_FB_USED%s / (DCGM_FI_DEV_FB_USED%s + DCGM_FI_DEV_FB_FREE%s)" % (g, g, g),
                             legend)), "percentunit", 0, 1, steps=((0.85, "orange"), (0.9, "red"))), 12, 8),
        (timeseries("Growth over the last 15 minutes", "Least-squares slope of framebuffer used (deriv over 15 m); "
                    "steady growth on a training job is a leak.",
                    targets(("deriv(DCGM_FI_DEV_FB_USED%s[15m])%s" % (g, mib), legend)), "Bps"), 12, 8),
        (timeseries("Time to OOM at the 15-minute trend", "Free memory over its growth rate, only for GPUs "
                    "whose use grows.",
                    targets(("DCGM_FI_DEV_FB_FREE%s / (deriv(DCGM_FI_DEV_FB_USED%s[15m]) > 0)" % (g, g), legend)),
                    "s", 0, steps=((3600, "orange"), (7200, "green")), base="red"), 12, 8),
        (timeseries("Projected use in 1 hour", "predict_linear over the last 30 minutes, as a share of the "
                    "GPU's memory: above 100 % the trend ends in an OOM within the hour.",
                    targets(("predict_linear(DCGM_FI_DEV_FB_USED%s[30m], 3600) / (DCGM_FI_DEV_FB_USED%s + "
                             "DCGM_FI_DEV_FB_FREE%s)" % (g, g, g), legend)), "percentunit", 0,
                    steps=((0.9, "orange"), (1, "red"))), 12, 8),
        (timeseries("Top processes by GPU memory", "The 10 largest processes (llmon_gpu_process_memory_bytes, "
                    "with their pod and command).",
                    targets(("topk(10, llmon_gpu_process_memory_bytes%s)" % g,
                             "{{instance}} GPU {{gpu}} {{namespace}}/{{pod}} {{command}} ({{pid}})")), "bytes", 0),
         12, 8),
    ]
    variables = [query_var("job", "Job", "label_values(DCGM_FI_DEV_FB_USED, job)"),
                 query_var("instance", "Node", 'label_values(DCGM_FI_DEV_FB_USED{job=~"$job"}, instance)'),
                 query_var("gpu", "GPU", 'label_values(DCGM_FI_DEV_FB_USED{job=~"$job",instance=~"$instance"}, gpu)',
                           sort=3)]
    return dashboard("llmon-gpu-memory", "GPU memory by node",
                     "Framebuffer used and free per GPU and summed per node over time, the headroom to an "
                     "out-of-memory crash and how fast it shrinks.", ["gpu", "memory"], variables, items)


PREFIX_DESC = ("Prefix of the trainer's metric names: the dashboard reads ${prefix}_step_duration_seconds "
               "(and ${prefix}_nccl_collective_duration_seconds), classic Prometheus histograms.")


def training():
    t = 'job=~"$job",instance=~"$instance"'
    m = "${prefix}_step_duration_seconds"
    host = '{Hostname=~"$host"}'
    items = [
        row("Step time"),
        (stat("Step time P50", "Over the last 5 minutes, all selected instances.", q(0.5, "", m, t, "5m"), "s"), 6, 4),
        (stat("Step time P99", "Over the last 5 minutes, all selected instances.", q(0.99, "", m, t, "5m"), "s"), 6, 4),
        (stat("Steps per second", "All selected instances, last 5 minutes.",
              "sum(rate(%s_count{%s}[5m]))" % (m, t), STEPS), 6, 4),
        (stat("Steps in the range", "Optimizer steps over the dashboard's time range, all selected instances "
              "(a restarted trainer's counters are continued).",
              "sum(increase(%s_count{%s}[$__range]))" % (m, t), "short"), 6, 4),
        (stat("Slowest instance P99", "The highest per-instance P99 over the last 5 minutes: the straggler the "
              "others wait for.", "max(%s)" % q(0.99, "instance", m, t, "5m"), "s"), 6, 4),
        (timeseries("Step time P50 / P90 / P99", "Quantiles of one optimizer step over the selected instances.",
                    targets((q(0.5, "", m, t), "P50"), (q(0.9, "", m, t), "P90"), (q(0.99, "", m, t), "P99")), "s", 0),
         24, 9),
        (timeseries("Step time P99 by instance", "A rank whose P99 stands out holds back every synchronous step.",
                    targets((q(0.99, "instance", m, t), "{{instance}}")), "s", 0), 12, 8),
        (timeseries("Step time P50 by instance", "", targets((q(0.5, "instance", m, t), "{{instance}}")), "s", 0),
         12, 8),
        (timeseries("Mean step time", "Sum over count of the histogram, per instance.",
                    targets(("sum by (instance) (rate(%s_sum{%s}[$__rate_interval])) / sum by (instance) "
                             "(rate(%s_count{%s}[$__rate_interval]))" % (m, t, m, t), "{{instance}}")), "s", 0),
         12, 8),
        (timeseries("Steps per second", "Optimizer steps per second per instance; drops to 0 while a trainer "
                    "restarts.", targets(("sum by (instance) (rate(%s_count{%s}[$__rate_interval]))" % (m, t),
                                          "{{instance}}")), STEPS, 0), 12, 8),
        (heatmap("Step time distribution", "Steps per bucket per interval, all selected instances.",
                 "sum by (le) (increase(%s_bucket{%s}[$__interval]))" % (m, t), "s", "Steps"), 24, 9),
        row("GPUs of the training nodes"),
        (timeseries("GPU utilisation", "Mean per node (Hostname of the trainer's hosts): low utilisation with slow "
                    "steps points at input, network or synchronisation.",
                    targets(("avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL%s)" % host, "{{Hostname}}")), "percent", 0, 100),
         12, 8),
        (timeseries("GPU memory used, fullest GPU", "Used share of each node's fullest GPU.",
                    targets(("max by (Hostname) (DCGM_FI_DEV_FB_USED%s / (DCGM_FI_DEV_FB_USED%s + "
                             "DCGM_FI_DEV_FB_FREE%s))" % (host, host, host), "{{Hostname}}")), "percentunit", 0, 1,
                    steps=((0.85, "orange"), (0.9, "red"))), 12, 8),
    ]
    cnt = "${prefix}_step_duration_seconds_count"
    variables = [textbox_var("prefix", "Metric prefix", "trainer", PREFIX_DESC),
                 query_var("job", "Job", "label_values(%s, job)" % cnt),
                 query_var("instance", "Instance", 'label_values(%s{job=~"$job"}, instance)' % cnt),
                 query_var("host", "Host", 'label_values(%s{job=~"$job",instance=~"$instance"}, instance)' % cnt,
                           regex=HOST_REGEX, hide=2)]
    return dashboard("llmon-training-step-time", "Training step time",
                     "Distribution of the optimizer step time from the trainer's histogram: P50/P90/P99 over the "
                     "job and per instance, throughput, and the GPUs of the same nodes.", ["training"], variables,
                     items, "now-3h")


def distributed_sync():
    c = 'job=~"$job",instance=~"$instance",collective=~"$collective"'
    t = 'job=~"$job",instance=~"$instance"'
    m = "${prefix}_nccl_collective_duration_seconds"
    host = '{Hostname=~"$host"}'
    nodes = 'instance=~"${host}(:[0-9]+)?",%s' % NET_DEV
    items = [
        row("Collective latency"),
        (heatmap("Collective duration", "Collectives per duration bucket per interval, all selected instances and "
                 "collectives: a second band appearing above the first is a slow link or rank.",
                 "sum by (le) (increase(%s_bucket{%s}[$__interval]))" % (m, c), "s", "Collectives"), 24, 10),
        (timeseries("P50 / P99 by collective", "",
                    targets((q(0.5, "collective", m, c), "{{collective}} P50"),
                            (q(0.99, "collective", m, c), "{{collective}} P99")), "s", 0), 12, 8),
        (timeseries("P99 by instance", "Every rank waits for the slowest: the instance that stands out is the one "
                    "to look at (link errors, a throttled GPU, a noisy neighbour).",
                    targets((q(0.99, "instance", m, c), "{{instance}}")), "s", 0), 12, 8),
        (timeseries("Collectives per second", "",
                    targets(("sum by (collective) (rate(%s_count{%s}[$__rate_interval]))" % (m, c), "{{collective}}")),
                    "ops", 0), 12, 8),
        (timeseries("Share of step time in collectives", "Time in the selected collectives over time in steps, per "
                    "instance (both histograms' sums; overlapped communication can exceed 100 %).",
                    targets(("sum by (instance) (rate(%s_sum{%s}[$__rate_interval])) / sum by (instance) "
                             "(rate(${prefix}_step_duration_seconds_sum{%s}[$__rate_interval]))" % (m, c, t),
                             "{{instance}}")), "percentunit", 0), 12, 8),
        row("Links of the same nodes"),
        (timeseries("NVLink traffic per node", "All GPUs' NVLink data bytes per second (llmon_gpu_nvlink_*).",
                    targets(("sum by (Hostname) (rate(llmon_gpu_nvlink_transmit_bytes_total%s[$__rate_interval]))"
                             % host, "{{Hostname}} transmit"),
                            ("sum by (Hostname) (rate(llmon_gpu_nvlink_receive_bytes_total%s[$__rate_interval]))"
                             % host, "{{Hostname}} receive")), "Bps", 0), 12, 8),
        (timeseries("Network traffic per node", "Physical interfaces of the trainers' hosts (node_network_*, any "
                    "port): inter-node all-reduce traffic.",
                    targets(("sum by (instance) (rate(node_network_transmit_bytes_total{%s}[$__rate_interval]))"
                             % nodes, "{{instance}} transmit"),
                            ("sum by (instance) (rate(node_network_receive_bytes_total{%s}[$__rate_interval]))"
                             % nodes, "{{instance}} receive")), "Bps", 0), 12, 8),
    ]
    cnt = "${prefix}_nccl_collective_duration_seconds_count"
    variables = [textbox_var("prefix", "Metric prefix", "trainer", PREFIX_DESC),
                 query_var("job", "Job", "label_values(%s, job)" % cnt),
                 query_var("instance", "Instance", 'label_values(%s{job=~"$job"}, instance)' % cnt),
                 query_var("collective", "Collective",
                           'label_values(%s{job=~"$job",instance=~"$instance"}, collective)' % cnt),
                 query_var("host", "Host", 'label_values(%s{job=~"$job",instance=~"$instance"}, instance)' % cnt,
                           regex=HOST_REGEX, hide=2)]
    return dashboard("llmon-distributed-sync", "Distributed synchronisation latency",
                     "NCCL collective durations from the trainer's histogram as a heatmap and as quantiles per "
                     "collective and per instance, with the NVLink and network traffic of the same nodes.",
                     ["training", "nccl"], variables, items, "now-3h")


def inference():
    v = 'job=~"$job",instance=~"$instance",model_name=~"$model_name"'
    sel = "{%s}" % v
    host = '{Hostname=~"$host"}'
    legend = "{{Hostname}} GPU {{gpu}}"

    def p50_p99(metric, by=""):
        pre = ("{{%s}} " % by) if by else ""
        return targets((q(0.5, by, metric, v), pre + "P50"), (q(0.99, by, metric, v), pre + "P99"))

    # vLLM 0.11 renamed time_per_output_token to inter_token_latency (same buckets) and
    # gpu_cache_usage_perc to kv_cache_usage_perc: either name, the new one first.
    itl = ("vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds")

    items = [
        row("Now"),
        (stat("TTFT P99", "Time to first token, last 5 minutes, selected models.",
              q(0.99, "", "vllm:time_to_first_token_seconds", v, "5m"), "s", steps=((1, "orange"), (2.5, "red"))),
         4, 4),
        (stat("TPOT P99", "Time per output token (inter-token latency), last 5 minutes.",
              q_renamed(0.99, "", itl[0], itl[1], v, "5m"), "s"), 4, 4),
        (stat("E2E P99", "End-to-end request latency, last 5 minutes.",
              q(0.99, "", "vllm:e2e_request_latency_seconds", v, "5m"), "s"), 4, 4),
        (stat("Generated tokens/s", "", "sum(rate(vllm:generation_tokens_total%s[5m]))" % sel, TOKENS), 4, 4),
        (stat("Requests running", "", "sum(vllm:num_requests_running%s)" % sel, "none"), 4, 4),
        (stat("Requests waiting", "Queued requests: above 0 for long means too little capacity.",
              "sum(vllm:num_requests_waiting%s)" % sel, "none", steps=((1, "orange"),)), 4, 4),
        row("Latency"),
        (timeseries("Time to first token P50 / P99", "Queueing plus prefill.",
                    p50_p99("vllm:time_to_first_token_seconds"), "s", 0), 8, 8),
        (timeseries("Time per output token P50 / P99", "Inter-token latency: decode speed as a user sees it "
                    "(vllm:inter_token_latency_seconds, before vLLM 0.11 vllm:time_per_output_token_seconds).",
                    targets((q_renamed(0.5, "", itl[0], itl[1], v), "P50"),
                            (q_renamed(0.99, "", itl[0], itl[1], v), "P99")), "s", 0), 8, 8),
        (timeseries("End-to-end latency P50 / P99", "", p50_p99("vllm:e2e_request_latency_seconds"), "s", 0), 8, 8),
        (timeseries("TTFT P99 by model", "", targets((q(0.99, "model_name", "vllm:time_to_first_token_seconds", v),
                                                      "{{model_name}}")), "s", 0), 12, 8),
        (timeseries("End-to-end P99 by instance", "",
                    targets((q(0.99, "instance", "vllm:e2e_request_latency_seconds", v), "{{instance}}")), "s", 0),
         12, 8),
        (timeseries("Requests finished within 5 s", "Share of requests whose end-to-end latency was at most "
                    "5 s (the bucket le=\"5.0\"), per model: an SLO read straight from the histogram.",
                    targets(('sum by (model_name) (rate(vllm:e2e_request_latency_seconds_bucket{%s,le="5.0"}'
                             '[$__rate_interval])) / sum by (model_name) (rate(vllm:e2e_request_latency_seconds_count'
                             '{%s}[$__rate_interval]))' % (v, v), "{{model_name}}")), "percentunit", 0, 1,
                    steps=((0.95, "green"),), base="orange"), 12, 8),
        (timeseries("Prompt tokens per request", "Mean prompt length per finished request and model.",
                    targets(("sum by (model_name) (rate(vllm:prompt_tokens_total%s[$__rate_interval])) / sum by "
                             "(model_name) (rate(vllm:request_success_total%s[$__rate_interval]))" % (sel, sel),
                             "{{model_name}}")), "short", 0), 12, 8),
        row("Throughput and load"),
        (timeseries("Token throughput", "Prompt (prefill) and generated tokens per second per model.",
                    targets(("sum by (model_name) (rate(vllm:prompt_tokens_total%s[$__rate_interval]))" % sel,
                             "{{model_name}} prompt"),
                            ("sum by (model_name) (rate(vllm:generation_tokens_total%s[$__rate_interval]))" % sel,
                             "{{model_name}} generated")), TOKENS, 0), 12, 8),
        (timeseries("Requests finished per second", "By finish reason (stop, length, abort).",
                    targets(("sum by (model_name, finished_reason) (rate(vllm:request_success_total%s"
                             "[$__rate_interval]))" % sel, "{{model_name}} {{finished_reason}}")), "reqps", 0), 12, 8),
        (timeseries("Requests running and waiting", "",
                    targets(("sum by (model_name) (vllm:num_requests_running%s)" % sel, "{{model_name}} running"),
                            ("sum by (model_name) (vllm:num_requests_waiting%s)" % sel, "{{model_name}} waiting")),
                    "none", 0), 12, 8),
        (timeseries("KV cache usage", "Share of the GPU KV-cache blocks in use; near 100 % vLLM preempts requests.",
                    targets(("vllm:kv_cache_usage_perc%s or vllm:gpu_cache_usage_perc%s" % (sel, sel),
                             "{{instance}} {{model_name}}")), "percentunit", 0, 1,
                    steps=((0.9, "orange"),)), 12, 8),
        row("GPUs of the same hosts"),
        (timeseries("GPU utilisation", "", targets(("DCGM_FI_DEV_GPU_UTIL%s" % host, legend)), "percent", 0, 100),
         12, 8),
        (timeseries("GPU memory used", "Weights plus the KV cache vLLM reserves (--gpu-memory-utilization).",
                    targets(("DCGM_FI_DEV_FB_USED%s / (DCGM_FI_DEV_FB_USED%s + DCGM_FI_DEV_FB_FREE%s)"
                             % (host, host, host), legend)), "percentunit", 0, 1), 12, 8),
        (timeseries("Tensor core activity", "", targets(("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE%s" % host, legend)),
                    "percentunit", 0, 1), 12, 8),
        (timeseries("GPU power", "", targets(("DCGM_FI_DEV_POWER_USAGE%s" % host, legend)), "watt", 0), 12, 8),
    ]
    probe = "vllm:num_requests_running"
    variables = [query_var("job", "Job", "label_values(%s, job)" % probe),
                 query_var("instance", "Instance", 'label_values(%s{job=~"$job"}, instance)' % probe),
                 query_var("model_name", "Model",
                           'label_values(%s{job=~"$job",instance=~"$instance"}, model_name)' % probe),
                 query_var("host", "Host", 'label_values(%s{job=~"$job",instance=~"$instance"}, instance)' % probe,
                           regex=HOST_REGEX, hide=2)]
    return dashboard("llmon-inference-vllm", "LLM inference (vLLM)",
                     "vLLM's latency (TTFT, TPOT, end to end: P50/P99), token throughput, queue and KV cache, "
                     "beside the GPUs of the same hosts.", ["inference", "vllm"], variables, items, "now-3h")


DASHBOARDS = {
    "llm-node-overview.json": node_overview,
    "gpu-memory.json": gpu_memory,
    "training-step-time.json": training,
    "distributed-sync.json": distributed_sync,
    "inference-vllm.json": inference,
}


def lint(d):
    """What Grafana does not check on import: problems in this dashboard, as text lines."""
    out, ids, cells = [], set(), set()
    names = {v["name"] for v in d["templating"]["list"]}
    for p in d["panels"]:
        where = "%s: panel %r" % (d["uid"], p.get("title"))
        if p["id"] in ids:
            out.append("%s: id %d twice" % (where, p["id"]))
        ids.add(p["id"])
        g = p["gridPos"]
        if g["x"] + g["w"] > 24:
            out.append("%s: wider than the grid" % where)
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                if (x, y) in cells:
                    out.append("%s: overlaps another panel at %d,%d" % (where, x, y))
                cells.add((x, y))
        if p["type"] == "row":
            continue
        unit = p["options"]["yAxis"]["unit"] if p["type"] == "heatmap" else p["fieldConfig"]["defaults"].get("unit")
        if not unit:
            out.append("%s: no unit" % where)
        if p.get("datasource") != DS:
            out.append("%s: data source is not ${datasource}" % where)
        for t in p["targets"]:
            e = t["expr"]
            if t.get("datasource") != DS:
                out.append("%s: target %s: data source is not ${datasource}" % (where, t["refId"]))
            for ref in re.findall(r"\$\{?(\w+)", e):
                if ref not in names and not ref.startswith("__"):
                    out.append("%s: $%s is no variable" % (where, ref))
            if e.count("(") != e.count(")") or e.count("{") != e.count("}"):
                out.append("%s: unbalanced brackets in %s" % (where, e))
    return out


def render(make):
    d = make()
    problems = lint(d)
    if problems:
        sys.exit("\n".join(problems))
    return json.dumps(d, indent=2, ensure_ascii=False) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare with the committed files; write nothing")
    ap.add_argument("--dir", default=HERE)
    args = ap.parse_args()
    stale = []
    for name, make in DASHBOARDS.items():
        path = os.path.join(args.dir, name)
        text = render(make)
        if args.check:
            try:
                same = open(path, encoding="utf-8").read() == text
            except OSError:
                same = False
            if not same:
                stale.append(name)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if stale:
        print("deploy/grafana: %s differ from generate.py's output: run python3 deploy/grafana/generate.py"
              % ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
