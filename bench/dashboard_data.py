#!/usr/bin/env python3
"""24 h of one-second GPU samples for 8 GPUs, as Prometheus text with
timestamps (the input of `llmon tsdb import`): the overview's card and chart
families (DCGM_FI_DEV_GPU_UTIL, FB_USED, FB_FREE) with the labels an agent's
own history carries. Deterministic (the same bytes every run).
Usage: dashboard_data.py OUT END_UNIX_SECONDS [HOURS] [INSTANCE]"""
import sys

out, end = sys.argv[1], int(sys.argv[2])
hours = float(sys.argv[3]) if len(sys.argv) > 3 else 24
instance = sys.argv[4] if len(sys.argv) > 4 else "bench:1"
n = int(hours * 3600)
start = end - n + 1
with open(out, "w") as f:
    for gpu in range(8):
        lab = f'gpu="{gpu}",UUID="GPU-{gpu:08d}",modelName="NVIDIA H100 80GB HBM3",instance="{instance}",job="llmon"'
        for name in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE"):
            f.write(f"# TYPE {name} gauge\n") if gpu == 0 else None
        rows_util, rows_used, rows_free = [], [], []
        v = 50 + gpu
        for i in range(n):
            t = start + i
            v = (v * 1103515245 + 12345 + gpu) % 2147483648
            util = 60 + (v % 41) if (i // 600 + gpu) % 7 else v % 5  # idle dips of 10 minutes
            used = 60000 + (v % 12000)
            rows_util.append(f"DCGM_FI_DEV_GPU_UTIL{{{lab}}} {util} {t * 1000}\n")
            rows_used.append(f"DCGM_FI_DEV_FB_USED{{{lab}}} {used} {t * 1000}\n")
            rows_free.append(f"DCGM_FI_DEV_FB_FREE{{{lab}}} {81559 - 579 - used} {t * 1000}\n")
        f.writelines(rows_util)
        f.writelines(rows_used)
        f.writelines(rows_free)
