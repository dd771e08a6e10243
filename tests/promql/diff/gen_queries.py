#!/usr/bin/env python3
"""The query corpus of the PromQL differential test (docs/promql-compat.md).

Reads the data's time range from gen_data.py's --meta JSON and writes one JSON
object per line, one per HTTP request to run against both servers:

  {"id": 17, "kind": "instant", "query": "rate(x[5m])", "params": {"time": "..."},
   "method": "POST", "ordered": false, "tags": ["func:rate"]}
  {"id": 18, "kind": "range", "query": "...", "params": {"start": "...", "end": "...", "step": "37"}, ...}

The corpus is deterministic for given data (times are relative to the data's
start S and end E). It covers every float function, operator and aggregation
of Prometheus 2.42 (not the 3.x-only ones) on the generated series, offsets
(also negative), @ (start(), end(), a timestamp), subqueries, literals,
dashboard queries, and queries that must fail in both. Each query runs as an
instant query at several times and as a range query over several
start/end/step combinations (steps 15 s, 60 s and 37 s, unaligned ones too).

"ordered" is set for instant queries whose top level is sort()/sort_desc(),
whose order is part of the result. topk/bottomk are given inputs without ties.

Usage: gen_queries.py --meta data.json --out corpus.jsonl [--summary]
"""

import argparse
import datetime
import json
import re
import sys

# -- selectors over the generated data (gen_data.py) ----------------------------

CPU = 'node_cpu_seconds_total{job="node"}'
CPU_USER = 'node_cpu_seconds_total{job="node",mode="user"}'
NET_RX = "node_network_receive_bytes_total"  # gpu-node-2 eth0 resets
HIST_COUNT = "step_time_seconds_count"  # gpu-node-2 resets
ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"  # one GPU stops
LOAD1 = "node_load1"  # gpu-node-2 has a 10 m gap
POWER = 'DCGM_FI_DEV_POWER_USAGE{job="dcgm"}'  # one GPU stops, 3 m gap on gpu-node-1
LOSS = "train_loss"  # NaN, +Inf, -Inf
BATCH = "batch_job_progress_ratio"  # series that stop / start late / live 200 s
TEMP = 'DCGM_FI_DEV_GPU_TEMP{job="dcgm"}'
UTIL = 'DCGM_FI_DEV_GPU_UTIL{job="dcgm"}'
FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
FAST_CPU = 'node_cpu_seconds_total{job="llmon"}'  # 1 s data
FAST_UTIL = 'DCGM_FI_DEV_GPU_UTIL{job="llmon"}'
FAST_POWER = 'DCGM_FI_DEV_POWER_USAGE{job="llmon"}'

RANGE_FUNCS = ["rate", "irate", "increase", "delta", "idelta", "deriv", "resets", "changes", "avg_over_time",
               "min_over_time", "max_over_time", "sum_over_time", "count_over_time", "stddev_over_time",
               "stdvar_over_time", "last_over_time", "present_over_time", "absent_over_time"]
RANGE_FUNCS_ARGS = ["quantile_over_time(0.9, %s)", "quantile_over_time(0, %s)", "quantile_over_time(1.5, %s)",
                    "predict_linear(%s, 600)", "predict_linear(%s, -120)", "holt_winters(%s, 0.3, 0.6)"]
MATH_FUNCS = ["abs", "ceil", "floor", "round", "exp", "ln", "log2", "log10", "sqrt", "sgn", "acos", "acosh", "asin",
              "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan", "tanh", "deg", "rad", "timestamp"]
MATH_FUNCS_ARGS = ["round(%s, 0.5)", "round(%s, 10)", "clamp(%s, 0.2, 0.7)", "clamp(%s, 5, 1)", "clamp_min(%s, 0.5)",
                   "clamp_max(%s, 0.5)", "-%s", "+%s"]
MATH_INPUTS = [LOSS, "node_load1 - 2", TEMP + " / 100", FB_USED]
TIME_FUNCS = ["day_of_month", "day_of_week", "day_of_year", "days_in_month", "hour", "minute", "month", "year"]
ARITH = ["+", "-", "*", "/", "%", "^", "atan2"]
COMPARE = ["==", "!=", ">", "<", ">=", "<="]
AGGS = ["sum", "avg", "min", "max", "count", "group", "stddev", "stdvar"]
AGG_INPUTS = ["rate(%s[5m])" % CPU, POWER, LOSS, UTIL]
GROUPINGS = ["", " by (instance)", " without (cpu)", " by (Hostname, modelName)", " by ()", " without ()"]


class Corpus:
    def __init__(self, meta):
        self.S = meta["start"]
        self.E = meta["end"]
        self.FS = meta["fast_start"]
        S, E = self.S, self.E
        # Instant evaluation times: near the start (windows reach before the
        # data), mid-data, an unaligned time, the end, after the end within the
        # 5 m lookback and beyond it.
        self.t_std = [S + 60, S + 2700, S + 3605.5, E, E + 240]
        self.t_few = [S + 2700, E - 1, E + 240]
        self.t_far = [E + 600]
        self.t_fast = [E - 600, E - 1.5, E + 3]
        # Range queries: whole data (step 60), one crossing the 10 m gap and
        # the trainer restart (step 37, unaligned), one at the scrape interval
        # across the counter reset, the GPU that stops and a short-lived series,
        # and one running past the end (staleness).
        self.r_std = [(S - 300, E + 600, 60), (S + 2400, S + 3900, 37), (S + 4200, S + 5400, 15)]
        self.r_few = [(S + 2400, S + 3900, 37), (S + 4200, E + 420, 60)]
        self.r_full15 = [(S, E, 15)]
        self.r_fast = [(E - 300, E - 240, 1), (self.FS - 30, E + 30, 10)]
        self.cases = []

    # -- emitting --------------------------------------------------------------

    def add(self, query, tags, times=None, ranges=None, ordered=False):
        times = self.t_std if times is None else times
        ranges = self.r_std if ranges is None else ranges
        for t in times:
            self.cases.append({"kind": "instant", "query": query, "params": {"time": fmt_time(t)}, "tags": tags,
                               "ordered": ordered})
        for start, end, step in ranges:
            self.cases.append({"kind": "range", "query": query,
                               "params": {"start": fmt_time(start), "end": fmt_time(end), "step": str(step)},
                               "tags": tags, "ordered": False})

    def add_raw(self, kind, query, params, tags):
        self.cases.append({"kind": kind, "query": query, "params": params, "tags": tags, "ordered": False})

    def at(self, s):
        """An `@` argument: seconds after the data start."""
        return fmt_time(self.S + s)

    # -- the corpus ------------------------------------------------------------

    def build(self):
        self.selectors()
        self.range_functions()
        self.math_functions()
        self.other_functions()
        self.histograms()
        self.binary_operators()
        self.aggregations()
        self.offsets_and_at()
        self.subqueries()
        self.literals()
        self.dashboards()
        self.errors()
        self.api_params()
        for i, c in enumerate(self.cases):
            c["id"] = i
            # Grafana posts forms; every fifth request is a GET.
            c["method"] = "GET" if i % 5 == 0 else "POST"
        return self.cases

    def selectors(self):
        tags = ["selector"]
        for q in [LOAD1, CPU_USER, 'node_cpu_seconds_total{mode=~"user|system",cpu="1"}',
                  'node_cpu_seconds_total{mode!~"idle|iowait|.*irq",job="node"}', 'node_load1{instance!="gpu-node-1:9100"}',
                  'node_cpu_seconds_total{mode=~"use"}', 'node_cpu_seconds_total{mode=~"(?i)USER",cpu="0"}',
                  '{__name__=~"node_load.*"}', '{__name__="node_load5"}', 'node_load1{job="node",foo=""}',
                  'node_load1{foo=~""}', 'node_load1{foo!=""}', '{job=~".+",__name__="node_boot_time_seconds"}',
                  '{__name__=~"DCGM_FI_DEV_FB_.*",gpu="2"}', UTIL, POWER, LOSS, BATCH, "step_time_seconds_bucket",
                  'DCGM_FI_DEV_GPU_UTIL{modelName=~"NVIDIA H100.*",Hostname="gpu-node-2"}', "nonexistent_metric",
                  'node_load1{instance=~"gpu-node-[12]:9100"}', "node_uname_info", "node_memory_MemTotal_bytes",
                  "node_hwmon_chip_names", 'node_hwmon_chip_names{chip_name=~".*\\\\\\\\probe\\n.*"}',
                  'node_hwmon_chip_names{location="Zürich ✓"}', 'node_hwmon_chip_names{chip_name=~"k10temp \\"Tctl.*"}',
                  'label_replace(node_hwmon_chip_names, "short", "$1", "chip_name", "(\\\\w+) .*")',
                  "instance:node_cpu_utilisation:rate5m > 0.5", "avg(instance:node_cpu_utilisation:rate5m)"]:
            self.add(q, tags)
        # Whole raw data, as stored (shows import differences directly).
        everything = '{__name__=~"node_.*|DCGM_.*|step_time_.*|train_loss|batch_.*|instance:.*"}'
        self.add_raw("instant", everything + "[3h]", {"time": fmt_time(self.E + 1)}, ["raw", "selector"])
        for q in [LOAD1 + "[5m]", LOSS + "[10m]", BATCH + "[10m]", UTIL + "[1m]", NET_RX + "[2m]",
                  FAST_UTIL + "[10s]", LOAD1 + "[5m] offset 1h", 'node_load1[1h:5m]']:
            self.add(q, ["raw"], times=self.t_few, ranges=[])
        for q in [FAST_CPU, FAST_UTIL, FAST_POWER]:
            self.add(q, ["selector", "fast"], times=self.t_fast, ranges=self.r_fast)

    def range_functions(self):
        inputs = [(CPU_USER, ["1m", "5m"]), (NET_RX, ["1m", "5m", "1h"]), (HIST_COUNT, ["5m"]), (ENERGY, ["2m"]),
                  (LOAD1, ["1m", "5m", "1h"]), (POWER, ["5m"]), (LOSS, ["2m", "10m"]), (BATCH, ["5m"])]
        for f in RANGE_FUNCS:
            for sel, windows in inputs:
                for w in windows:
                    heavy = w == "5m" and sel in (NET_RX, LOAD1, LOSS)
                    self.add("%s(%s[%s])" % (f, sel, w), ["func:" + f],
                             times=self.t_std if heavy else self.t_few, ranges=self.r_std if heavy else self.r_few)
            for sel, w in [(FAST_CPU, "5s"), (FAST_UTIL, "3s"), (FAST_POWER, "30s")]:
                self.add("%s(%s[%s])" % (f, sel, w), ["func:" + f, "fast"], times=self.t_fast, ranges=self.r_fast)
        for fmt in RANGE_FUNCS_ARGS:
            tag = "func:" + fmt.split("(")[0]
            for sel, w in [(NET_RX, "5m"), (LOAD1, "5m"), (LOAD1, "1h"), (POWER, "10m"), (LOSS, "10m"),
                           (BATCH, "5m")]:
                self.add(fmt % ("%s[%s]" % (sel, w)), [tag])
            self.add(fmt % ("%s[10s]" % FAST_POWER), [tag, "fast"], times=self.t_fast, ranges=self.r_fast)
        # Windows and offsets that leave nothing or one sample.
        for q in ["rate(%s[10s])" % LOAD1, "irate(%s[20s])" % NET_RX, "deriv(%s[16s])" % LOAD1,
                  "absent_over_time(nonexistent_metric[5m])", 'absent_over_time(nonexistent_metric{job="x",a=~"b"}[5m])',
                  "count_over_time(%s[1m])" % BATCH, "rate(%s[1m1s])" % CPU_USER, "rate(%s[1m0s])" % CPU_USER,
                  "increase(%s[3h])" % NET_RX, "rate(%s[3h])" % HIST_COUNT, "resets(%s[3h])" % HIST_COUNT,
                  "delta(node_filesystem_avail_bytes[3h])", "changes(%s[3h])" % LOSS]:
            self.add(q, ["func:window"], times=self.t_few + self.t_far)

    def math_functions(self):
        for f in MATH_FUNCS:
            for x in MATH_INPUTS:
                self.add("%s(%s)" % (f, x), ["func:" + f], times=self.t_few, ranges=self.r_few[:1])
        for fmt in MATH_FUNCS_ARGS:
            tag = "func:" + fmt.split("(")[0] if "(" in fmt else "unary"
            for x in MATH_INPUTS:
                self.add(fmt % x if fmt[0] in "-+" else fmt % x, [tag], times=self.t_few, ranges=self.r_few[:1])
        for f in TIME_FUNCS:
            self.add("%s()" % f, ["func:" + f], times=self.t_few, ranges=self.r_few)
            self.add("%s(node_boot_time_seconds)" % f, ["func:" + f], times=self.t_few, ranges=self.r_few[:1])
            self.add("%s(vector(%s))" % (f, fmt_time(self.S + 1000)), ["func:" + f], times=self.t_few[:1], ranges=[])
        self.add("timestamp(%s)" % LOSS, ["func:timestamp"])
        self.add("timestamp(%s offset 5m)" % LOAD1, ["func:timestamp"], times=self.t_few, ranges=self.r_few)
        self.add("time()", ["func:time"])
        self.add("time() - node_boot_time_seconds", ["func:time"], times=self.t_few, ranges=self.r_few)
        self.add("minute(timestamp(%s))" % LOAD1, ["func:minute"], times=self.t_few, ranges=self.r_few)

    def other_functions(self):
        for x in [LOAD1, POWER, LOSS, "rate(%s[5m])" % NET_RX, BATCH]:
            for f in ["sort", "sort_desc"]:
                self.add("%s(%s)" % (f, x), ["func:" + f], times=self.t_std, ranges=self.r_few[:1], ordered=True)
        for q in ["scalar(%s)" % LOAD1, 'scalar(node_load1{instance="gpu-node-1:9100"})', "scalar(nonexistent_metric)",
                  "vector(1)", "vector(time())", 'vector(scalar(node_load1{instance="gpu-node-2:9100"}))',
                  'node_load1 * scalar(node_load5{instance="gpu-node-1:9100"})',
                  "absent(nonexistent_metric)", 'absent(nonexistent_metric{job="x",instance=~"y",a="b",a="c"})',
                  "absent(%s)" % LOAD1, "absent(sum(nonexistent_metric))", 'absent(node_load1{instance="nope"})',
                  'absent(%s{run="r1"})' % BATCH, "histogram_count(%s)" % LOAD1, "histogram_sum(%s)" % LOAD1]:
            self.add(q, ["func:" + re.search(r"([a-z_]+)\(", q).group(1)], times=self.t_std, ranges=self.r_few)
        for q in ['label_replace(node_load1, "host", "$1", "instance", "(.*):.*")',
                  'label_replace(node_load1, "host", "$1", "instance", "gpu-node-1.*")',
                  'label_replace(node_load1, "x", "$2", "instance", "(.*)")',
                  'label_replace(node_load1, "x", "${1}_y", "instance", "(.*)")',
                  'label_replace(node_load1, "job", "", "nope", "")',
                  'label_replace(node_load1, "__name__", "renamed", "", "")',
                  'label_replace(%s, "gpu", "gpu$1", "gpu", "(.)")' % TEMP,
                  'label_replace(nonexistent_metric, "a", "b", "c", "d")',
                  'label_join(%s, "id", "/", "Hostname", "gpu")' % TEMP,
                  'label_join(%s, "id", "", "gpu", "gpu", "nope")' % TEMP,
                  'label_join(node_load1, "foo", ",")',
                  'label_join(node_load1, "instance", "-", "job", "instance")',
                  'sum by (host) (label_replace(rate(%s[5m]), "host", "$1", "instance", "([^:]*).*"))' % CPU]:
            self.add(q, ["func:" + re.search(r"(label_[a-z]+)\(", q).group(1)], times=self.t_few, ranges=self.r_few[:1])
        # Both node_load1 series end up as {job="node"}: an error while both
        # hosts answer, a result during gpu-node-2's gap.
        self.add('label_replace(node_load1, "instance", "", "instance", ".*")', ["func:label_replace", "may-fail"],
                 times=self.t_few, ranges=self.r_few[:1])

    def histograms(self):
        b = "step_time_seconds_bucket"
        for phi in ["0.5", "0.9", "0.99", "0", "1", "-0.5", "1.5"]:
            self.add("histogram_quantile(%s, sum by (le) (rate(%s[5m])))" % (phi, b), ["func:histogram_quantile"])
        for q in ["histogram_quantile(0.9, rate(%s[5m]))" % b,
                  "histogram_quantile(0.9, sum by (le, instance) (rate(%s[1m])))" % b,
                  "histogram_quantile(0.75, %s)" % b,
                  'histogram_quantile(0.9, rate(%s{le!="+Inf"}[5m]))' % b,
                  'histogram_quantile(0.9, rate(%s{le=~"0.5|1|\\\\+Inf"}[5m]))' % b,
                  "histogram_quantile(0.9, sum without (le) (rate(%s[5m])))" % b,
                  "histogram_quantile(0.5, %s)" % LOAD1,
                  "histogram_quantile(scalar(vector(0.3)), sum by (le) (increase(%s[10m])))" % b,
                  "histogram_quantile(0.9, sum by (le) (rate(%s[5m] offset 30m)))" % b,
                  "rate(step_time_seconds_sum[5m]) / rate(step_time_seconds_count[5m])",
                  'sum by (instance) (rate(%s{le="1"}[5m])) / sum by (instance) (rate(step_time_seconds_count[5m]))' % b]:
            self.add(q, ["func:histogram_quantile"])

    def binary_operators(self):
        for op in ARITH + COMPARE:
            self.add("%s %s 60" % (TEMP, op), ["op:" + op, "vector-scalar"], times=self.t_few, ranges=self.r_few[:1])
            self.add("60 %s %s" % (op, TEMP), ["op:" + op, "scalar-vector"], times=self.t_few, ranges=self.r_few[:1])
            self.add("%s %s %s" % (FB_USED, op, FB_FREE), ["op:" + op, "vector-vector"], times=self.t_few,
                     ranges=self.r_few[:1])
            self.add("(%s - 3) %s 2" % (LOAD1, op), ["op:" + op, "vector-scalar"], times=self.t_few, ranges=[])
            self.add("%s %s %s" % (LOSS, op, LOSS), ["op:" + op, "nan"], times=self.t_few, ranges=[])
        for op in COMPARE:
            self.add("%s %s bool 60" % (TEMP, op), ["op:bool"], times=self.t_few, ranges=self.r_few[:1])
            self.add("%s %s bool %s" % (FB_USED, op, FB_FREE), ["op:bool"], times=self.t_few, ranges=self.r_few[:1])
            self.add("1 %s bool 2" % op, ["op:bool", "scalar-scalar"], times=self.t_few[:1], ranges=self.r_few[:1])
            self.add("%s %s bool 1" % (LOSS, op), ["op:bool", "nan"], times=self.t_few, ranges=[])
        joins = [
            "node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes",
            "node_memory_MemAvailable_bytes / on(instance) node_memory_MemTotal_bytes",
            "node_memory_MemAvailable_bytes / ignoring(job) node_memory_MemTotal_bytes",
            "%s / on(Hostname, gpu) %s" % (POWER, UTIL),
            'DCGM_FI_DEV_POWER_USAGE{job="dcgm",Hostname="gpu-node-1"} / on(gpu) %s' % FAST_POWER,
            "rate(%s[5m]) / ignoring(mode) group_left sum without (mode) (rate(%s[5m]))" % (CPU, CPU),
            "sum without (mode) (rate(%s[5m])) / ignoring(mode) group_right rate(%s[5m])" % (CPU, CPU),
            "node_load1 * on(instance) group_left(nodename, release) node_uname_info",
            "node_uname_info * on(instance) group_right(nodename) node_load1",
            '%s * on(Hostname) group_left(release) label_replace(node_uname_info, "Hostname", "$1", "nodename", "(.*)")'
            % UTIL,
            'label_replace(node_uname_info, "Hostname", "$1", "nodename", "(.*)") * on(Hostname) group_right(release) %s'
            % UTIL,
            "%s > on(Hostname, gpu) group_left %s" % (TEMP, 'DCGM_FI_DEV_GPU_UTIL{job="dcgm"} / 2'),
            "%s + on(Hostname) group_left() max by (Hostname) (%s)" % (POWER, POWER),
            "node_load1 > bool on(instance) node_load5",
            "node_load1 + node_load5 * 2", "node_load1 ^ 2 ^ 0.5", "-node_load1 ^ 2", "- - node_load1",
            "(node_load1 > 2) * 10", "node_load1 > bool 2 > bool 0", "node_load1 > 2 < 4",
            "node_load1 == node_load1", "node_load1 != node_load5", "vector(1) == 1", "vector(1) == bool 1",
            "1 - node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes",
        ]
        for q in joins:
            self.add(q, ["op:join"], times=self.t_few, ranges=self.r_few)
        sets = [
            "%s > 50 and %s > 60" % (UTIL, TEMP), "%s and on(Hostname) %s > 80" % (POWER, UTIL),
            "%s unless %s > 70" % (UTIL, TEMP), "%s unless ignoring(gpu) %s" % (UTIL, TEMP),
            "node_load1 or node_load5", "node_load1 or vector(0)",
            "%s or %s" % (BATCH, LOAD1), "vector(1) and on() absent(nonexistent_metric)",
            "%s and %s" % (LOAD1, "nonexistent_metric"), "%s or on(instance) node_load5" % LOAD1,
            "(node_load1 > 3) or (node_load5 < 2)", "node_load1 and node_load5 unless node_load1 > 3",
            "%s or %s" % (BATCH, BATCH), "rate(%s[5m]) > 0 and ignoring(mode) rate(%s[5m]) > 0.1" % (CPU_USER, CPU),
        ]
        for q in sets:
            self.add(q, ["op:set"], times=self.t_few, ranges=self.r_few)
        # One output series fed by the left side at some steps and by the right
        # side at others (the data of one side stops or starts in the range).
        switching = [
            "sum(node_load1) or vector(0)",
            'sum(%s{run="r1"}) or sum(%s{run="r2"})' % (BATCH, BATCH),
            'max(DCGM_FI_DEV_POWER_USAGE{job="dcgm",Hostname="gpu-node-2",gpu="3"}) or vector(-1)',
            'label_replace(%s{run="r1"}, "run", "x", "", "") or label_replace(%s{run="r2"}, "run", "x", "", "")'
            % (BATCH, BATCH),
            "vector(0) or sum(%s)" % BATCH,
        ]
        for q in switching:
            self.add(q, ["op:set", "switching"], times=self.t_few, ranges=self.r_std + self.r_few)

    def aggregations(self):
        for agg in AGGS:
            for x in AGG_INPUTS:
                for g in GROUPINGS:
                    self.add("%s%s (%s)" % (agg, g, x), ["agg:" + agg], times=self.t_few[:2], ranges=self.r_few[:1])
        for x in AGG_INPUTS:
            for g in ["", " by (instance)", " without (gpu, cpu)"]:
                for phi in ["0.9", "0", "1", "1.5", "-1"]:
                    self.add("quantile%s (%s, %s)" % (g, phi, x), ["agg:quantile"], times=self.t_few[:2],
                             ranges=self.r_few[:1] if phi == "0.9" else [])
        for q in ['count_values("value", %s)' % TEMP, 'count_values by (Hostname) ("t", %s)' % TEMP,
                  'count_values("gpu", %s)' % TEMP, 'count_values("v", %s)' % LOSS, 'count_values("v", %s)' % POWER,
                  'count_values without (instance) ("load", node_load1)', 'count_values("le", step_time_seconds_bucket)']:
            self.add(q, ["agg:count_values"], times=self.t_few, ranges=self.r_few[:1])
        # topk/bottomk on inputs whose values do not tie (power, memory, byte rates).
        for q in ["topk(2, %s)" % POWER, "topk(3, %s) by (Hostname)" % POWER, "bottomk(1, node_memory_MemAvailable_bytes)",
                  "bottomk by (Hostname) (2, %s)" % POWER, "topk(2, rate(%s[5m]))" % NET_RX,
                  "bottomk(3, rate(%s[5m]))" % 'node_disk_read_bytes_total', "topk(0, %s)" % POWER,
                  "topk(100, node_memory_MemAvailable_bytes)", "sum(topk(2, %s))" % POWER,
                  "topk(scalar(vector(2)), %s)" % POWER]:
            self.add(q, ["agg:topk"], times=self.t_few, ranges=self.r_few)
        for q in ["sum(%s) by (instance)" % CPU, "sum(rate(%s[5m])) without (cpu, mode)" % CPU,
                  "avg by (instance, job) (node_load1)", "count by (__name__) ({__name__=~\"node_load.*\"})",
                  "sum by (job) ({__name__=~\"DCGM_FI_DEV_FB_.*\"})", "max by (le) (step_time_seconds_bucket)",
                  "sum(sum by (instance) (rate(%s[5m])))" % CPU, "count(count by (Hostname) (%s))" % UTIL,
                  "group by (modelName) (%s)" % UTIL, "sum by (nonexistent_label) (node_load1)",
                  "avg(%s)" % "nonexistent_metric", "stddev(node_memory_MemTotal_bytes)", "sum(node_boot_time_seconds)"]:
            self.add(q, ["agg:misc"], times=self.t_few, ranges=self.r_few[:1])

    def offsets_and_at(self):
        t1, t2 = self.at(3600), self.at(5432.25)
        qs = ["node_load1 offset 5m", "node_load1 offset 1h", "node_load1 offset -5m", "node_load1 offset -1h30m",
              "rate(%s[5m] offset 10m)" % NET_RX, "rate(%s[5m] offset -10m)" % NET_RX,
              "node_load1 @ %s" % t1, "node_load1 @ %s" % t2, "node_load1 @ start()", "node_load1 @ end()",
              "rate(%s[5m] @ end())" % NET_RX, "sum(rate(%s[5m] @ start()))" % CPU,
              "node_load1 @ %s offset 5m" % t1, "node_load1 offset 5m @ %s" % t1, "timestamp(node_load1 @ %s)" % t2,
              "avg_over_time(node_load1[10m] @ %s)" % t1, "node_load1 - node_load1 @ start()",
              "node_load1 - node_load1 offset 1h", "%s @ %s" % (BATCH, self.at(1500)),
"node_load1 @ %s" % fmt_time(self.E + 1e6),
              "rate(node_load1[5m] @ %s offset -5m)" % t1, "increase(%s[1h] @ end())" % HIST_COUNT]
        for q in qs:
            self.add(q, ["offset_at"], times=self.t_few, ranges=self.r_few)

    def subqueries(self):
        t1 = self.at(3600)
        qs = ["max_over_time(rate(%s[1m])[30m:1m])" % NET_RX, "avg_over_time(node_load1[10m:30s])",
              "min_over_time(%s[15m:])" % POWER, "sum_over_time(sum(rate(%s[5m]))[1h:5m])" % CPU,
              "deriv(node_load1[10m:15s] offset 5m)", "max_over_time(node_load1[10m:1m] @ %s)" % t1,
              "max_over_time(avg_over_time(node_load1[5m:1m])[20m:2m])", "rate(%s[10m:37s])" % NET_RX,
              "count_over_time(%s[10m:1m])" % BATCH, "last_over_time(%s[1h:1m] offset -10m)" % LOSS,
              "quantile_over_time(0.5, rate(%s[5m])[30m:1m])" % HIST_COUNT,
              "max_over_time(%s[30s:1s])" % FAST_UTIL]
        for q in qs:
            self.add(q, ["subquery"], times=self.t_std, ranges=self.r_few)
        for q in ["rate(%s[5m])[10m:1m]" % NET_RX, "node_load1[5m:]", "node_load1[10m:1m] offset 5m",
                  "sum(node_load1)[10m:90s]"]:
            self.add(q, ["subquery", "raw"], times=self.t_few, ranges=[])

    def literals(self):
        for q in ["1", "-1.5", "1e3", "0x1f", ".5", "5.", "Inf", "-Inf", "NaN", "+1", "1 + 2 * 3", "2 ^ 3 ^ 2",
                  "-2 ^ 2", "1 / 0", "-1 / 0", "0 / 0", "5 % 3", "-5 % 3", "5.5 % -2", "1 atan2 2", "(1 + 2) * 3",
                  "time() - 3600", "1 == bool 1", "2 > bool 1", "NaN == bool NaN", "Inf - Inf"]:
            self.add(q, ["literal"], times=self.t_few[:2], ranges=self.r_few[:1])
        for q in ['"a string"', "'single quoted'", "`raw \\d string`", '"esc\\"aped\\n"']:
            self.add(q, ["literal", "string"], times=self.t_few[:1], ranges=[])

    def dashboards(self):
        qs = [
            "rate(node_cpu_seconds_total[1m])",
            "sum by (instance, mode) (rate(node_cpu_seconds_total[5m]))",
            '1 - avg(rate(node_cpu_seconds_total{mode="idle"}[5m]))',
            '100 - (avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[5m])) * 100)',
            'sum by (instance) (rate(node_network_receive_bytes_total{device!="lo"}[5m])) * 8',
            "irate(node_network_transmit_bytes_total[1m])",
            "node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes * 100",
            "avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL)",
            "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)",
            "histogram_quantile(0.9, sum by (le) (rate(step_time_seconds_bucket[5m])))",
            "histogram_quantile(0.99, sum by (le, instance) (rate(step_time_seconds_bucket[5m])))",
            "predict_linear(node_filesystem_avail_bytes[1h], 4 * 3600) < 0",
            "sum(increase(step_time_seconds_count[1h]))",
            "count(DCGM_FI_DEV_GPU_TEMP > 60)",
            "max by (Hostname) (DCGM_FI_DEV_GPU_TEMP)",
            "sum(rate(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[5m])) / 1000",
            "avg_over_time(DCGM_FI_DEV_POWER_USAGE[1h]) * 3600 / 1000",
            "rate(node_disk_io_time_seconds_total[5m])",
            "sum by (instance) (rate(node_disk_read_bytes_total[5m]) + rate(node_disk_written_bytes_total[5m]))",
            "node_filesystem_avail_bytes / 1024 / 1024 / 1024",
            "avg by (Hostname, modelName) (DCGM_FI_DEV_GPU_UTIL) > 50",
            "sum by (Hostname) (DCGM_FI_DEV_POWER_USAGE)",
            "(time() - node_boot_time_seconds) / 86400",
            "topk(3, DCGM_FI_DEV_POWER_USAGE)",
            "rate(node_cpu_seconds_total[1m0s])",
        ]
        for q in qs:
            self.add(q, ["dashboard"], times=self.t_std + self.t_far, ranges=self.r_std + self.r_full15)

    def errors(self):
        parse = ["sum(", "rate(node_load1)", "node_load1[5m] + 1", "foo{", "1 +", '"a" + 1', "unknown_func(node_load1)",
                 "rate(node_load1[5m])[1m]", "node_load1 offset", 'topk("a", node_load1)', "1 > 1",
                 "node_load1{}[5m", "{}", '{job=~".*"}', "sum by (instance) node_load1", "node_load1 and 1",
                 "histogram_quantile(0.9)", "label_replace(node_load1, \"a\", \"b\", \"c\")", "node_load1[5x]",
                 "quantile_over_time(node_load1[5m])", "1 + on(x) 2", "abs(1)", 'node_load1{a=~"("}', "vector(\"a\")",
                 "node_load1 @ foo()", "mad_over_time(node_load1[5m])", "sort_by_label(node_load1, \"instance\")",
                 "limitk(1, node_load1)", "double_exponential_smoothing(node_load1[5m], 0.5, 0.5)",
                 "node_load1[0s]", "node_load1 offset 0s", "node_load1[5m:0s]", "1 + (", ")", "node_load1 group_left node_load5",
                 'count_values(1, node_load1)', 'label_join(node_load1, "instance")',
                 "sum(%s) @ %s" % (POWER, self.at(3600)), "1 @ start()"]
        for q in parse:
            self.add(q, ["error:parse"], times=self.t_few[:1], ranges=self.r_few[:1])
        runtime = ["%s + on(instance) node_load1" % CPU,
                   "rate(%s[5m]) + ignoring(mode) rate(%s[5m])" % (CPU, CPU),
                   "node_load1 * on(job) group_left %s" % CPU,
                   '{__name__=~"node_memory_.*"} * 2', 'rate({__name__=~"DCGM_FI_DEV_FB_.*"}[5m])',
                   'abs({__name__=~"node_load.*"})',
                   'label_replace(node_load1, "bad-name", "x", "instance", ".*")',
                   'label_replace(node_load1, "a", "b", "instance", "(")',
                   'label_join(node_load1, "bad-name", ",", "instance")',
                   'count_values("bad-name", node_load1)']
        for q in runtime:
            self.add(q, ["error:exec"], times=self.t_few[:2], ranges=self.r_few[:1])
        # Range vectors and strings are not valid results of a range query.
        for q in ["node_load1[5m]", '"str"', "rate(node_load1[5m])[10m:1m]"]:
            self.add(q, ["error:range-type"], times=[], ranges=self.r_few[:1])

    def api_params(self):
        S, E = self.S, self.E
        tags = ["api"]
        q = "sum(node_load1)"
        self.add_raw("instant", q, {"time": rfc3339(S + 3600)}, tags)
        self.add_raw("instant", q, {"time": rfc3339(S + 3600.5)}, tags)
        self.add_raw("range", q, {"start": rfc3339(S + 600), "end": rfc3339(S + 3600), "step": "1m"}, tags)
        self.add_raw("range", q, {"start": fmt_time(S + 600), "end": fmt_time(S + 3600), "step": "1m30s"}, tags)
        self.add_raw("range", q, {"start": fmt_time(S + 600), "end": fmt_time(S + 3600), "step": "90.5"}, tags)
        self.add_raw("range", q, {"start": fmt_time(S + 600), "end": fmt_time(S + 600), "step": "15"}, tags)
        self.add_raw("range", q, {"start": fmt_time(S + 600.123), "end": fmt_time(S + 700.456), "step": "7.5"}, tags)
        self.add_raw("range", "1", {"start": fmt_time(S), "end": fmt_time(S + 120), "step": "60"}, tags)
        self.add_raw("range", "time()", {"start": fmt_time(S), "end": fmt_time(S + 120), "step": "30"}, tags)
        for params in [{"start": fmt_time(S + 600), "end": fmt_time(S), "step": "15"},
                       {"start": fmt_time(S), "end": fmt_time(E), "step": "0"},
                       {"start": fmt_time(S), "end": fmt_time(E), "step": "-15"},
                       {"start": fmt_time(S), "end": fmt_time(E), "step": "0.5"},
                       {"start": "abc", "end": fmt_time(E), "step": "15"},
                       {"start": fmt_time(S), "end": fmt_time(E)}]:
            self.add_raw("range", q, params, ["api", "error:api"])
        self.add_raw("instant", q, {"time": "not-a-time"}, ["api", "error:api"])
        self.add_raw("instant", "", {"time": fmt_time(E)}, ["api", "error:api"])


def fmt_time(t):
    """Epoch seconds as Grafana sends them: integer when whole, else up to ms."""
    if abs(t - round(t)) < 1e-9:
        return str(int(round(t)))
    return ("%.3f" % t).rstrip("0")


def rfc3339(t):
    dt = datetime.datetime.fromtimestamp(t, tz=datetime.timezone.utc)
    s = dt.strftime("%Y-%m-%dT%H:%M:%S")
    frac = t - int(t)
    if frac:
        s += (".%03d" % round(frac * 1000)).rstrip("0")
    return s + "Z"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--meta", required=True, help="gen_data.py --meta output")
    ap.add_argument("--out", required=True)
    ap.add_argument("--summary", action="store_true", help="print counts by tag")
    args = ap.parse_args()
    with open(args.meta) as f:
        meta = json.load(f)
    cases = Corpus(meta).build()
    with open(args.out, "w") as f:
        for c in cases:
            f.write(json.dumps(c, sort_keys=True) + "\n")
    queries = len({c["query"] for c in cases})
    print("gen_queries: %d cases (%d instant, %d range) from %d queries" %
          (len(cases), sum(c["kind"] == "instant" for c in cases), sum(c["kind"] == "range" for c in cases), queries),
          file=sys.stderr)
    if args.summary:
        counts = {}
        for c in cases:
            counts[c["tags"][0].split(":")[0]] = counts.get(c["tags"][0].split(":")[0], 0) + 1
        for k, v in sorted(counts.items()):
            print("  %-12s %d" % (k, v), file=sys.stderr)


if __name__ == "__main__":
    main()
