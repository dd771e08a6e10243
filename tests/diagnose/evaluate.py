#!/usr/bin/env python3
"""The evaluation of `llmon diagnose` on the labelled scenarios (docs/diagnosis.md,
"Evaluation"): every run of tests/diagnose/scenarios.py is imported into its own store
and diagnosed over its label's window at its end; then, per run, whether the top finding
is the labelled top kind, whether every injected kind is among the findings, and (for
healthy runs) whether any warning-or-worse finding that the label does not accept
appears, and whether the findings name the labelled subjects. Prints the per-run table, the confusion matrix of top kinds, the rates, and
the diagnosis time per run. Usage: evaluate.py LLMON SCENARIO_DIR [WORK_DIR]"""
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def subject_right(want, findings):
    """Whether the findings of one kind name the labelled subject: every labelled value of
    `gpu`, `pid`, `device` and `instance` (a list: all of them) among the values the findings
    give that key ("0,1,2": several GPUs). The label's `cpu` (a core) is not a subject llmon names."""
    for key, val in want.items():
        if key == "cpu":
            continue
        vals = {val} if isinstance(val, str) else set(val)
        have = {x for f in findings for x in f["subject"].get(key, "").split(",") if x}
        if not vals <= have:
            return False
    return True


def main():
    llmon, scen = sys.argv[1], sys.argv[2]
    work = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="llmon-diag-eval.")
    runs = []
    for label_path in sorted(glob.glob(os.path.join(scen, "*.json"))):
        label = json.load(open(label_path))
        data = label_path[:-5] + (".prom.gz" if os.path.exists(label_path[:-5] + ".prom.gz") else ".prom")
        store = os.path.join(work, label["name"])
        shutil.rmtree(store, ignore_errors=True)
        imp = subprocess.run([llmon, "tsdb", "import", data, f"--storage.path={store}"], capture_output=True, text=True)
        if imp.returncode != 0:
            sys.exit(f"import of {data} failed: {imp.stderr}")
        t0 = time.perf_counter()
        out = subprocess.run([llmon, "diagnose", f"--storage.path={store}", f"--time={label['end_ms'] / 1000:.3f}",
                              f"--window={label['window']}", '--diagnose.selector=job="llmon"', "--json"],
                             capture_output=True, text=True)
        dt = time.perf_counter() - t0
        if out.returncode not in (0, 1):
            sys.exit(f"diagnose of {label['name']} failed ({out.returncode}): {out.stderr}")
        d = json.loads(out.stdout)
        shutil.rmtree(store, ignore_errors=True)
        found = [f["kind"] for f in d["findings"]]
        subjects = {k: subject_right(label["subjects"].get(k, {}), [f for f in d["findings"] if f["kind"] == k])
                    for k in label["kinds"] if k in found}
        serious = [f["kind"] for f in d["findings"] if f["severity"] != "info"]
        top = next((f["kind"] for f in d["findings"] if f["kind"] not in label.get("acceptable", [])), None)
        runs.append({"name": label["name"], "want_top": label["top"], "want": label["kinds"], "top": top,
                     "found": found, "serious": serious, "acceptable": label.get("acceptable", []), "seconds": dt,
                     "errors": d["errors"], "subjects": subjects})

    print("| Run | Labelled top | Top finding | Injected kinds found | Other findings |")
    print("|---|---|---|---|---|")
    for r in runs:
        hit = [k for k in r["want"] if k in r["found"]]
        other = sorted(set(r["found"]) - set(r["want"]) - set(r["acceptable"]))
        print(f"| {r['name']} | {r['want_top'] or 'healthy'} | {r['top'] or '-'} | {len(hit)}/{len(r['want'])} "
              f"{' '.join(hit)} | {' '.join(other) or '-'} |")
    labelled = [r for r in runs if r["want_top"]]
    healthy = [r for r in runs if not r["want_top"]]
    top_ok = sum(r["top"] == r["want_top"] for r in labelled)
    causes = sum(len(r["want"]) for r in labelled)
    causes_ok = sum(sum(k in r["found"] for k in r["want"]) for r in labelled)
    false_healthy = sum(any(k not in r["acceptable"] for k in r["serious"]) for r in healthy)
    print()
    print(f"top finding right: {top_ok}/{len(labelled)} ({100 * top_ok / max(1, len(labelled)):.0f} %)")
    print(f"injected causes found: {causes_ok}/{causes} ({100 * causes_ok / max(1, causes):.0f} %)")
    print(f"healthy runs with a warning-or-worse finding: {false_healthy}/{len(healthy)}")
    subj = [(r["name"], k, ok) for r in runs for k, ok in r["subjects"].items()]
    subj_ok = sum(ok for _, _, ok in subj)
    print(f"subjects right (of the injected kinds found): {subj_ok}/{len(subj)} "
          f"({100 * subj_ok / max(1, len(subj)):.0f} %)")
    wrong = collections.Counter(k for _, k, ok in subj if not ok)
    if wrong:
        print("subjects wrong by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(wrong.items())))
    conf = collections.Counter((r["want_top"] or "healthy", r["top"] or "healthy") for r in runs)
    kinds = sorted({k for pair in conf for k in pair})
    print("\nconfusion of top kinds (rows labelled, columns found):\n")
    print("| labelled \\ found | " + " | ".join(kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    for a in kinds:
        if any(x == a for x, _ in conf):
            print(f"| {a} | " + " | ".join(str(conf.get((a, b), "")) for b in kinds) + " |")
    secs = sorted(r["seconds"] for r in runs)
    print(f"\ndiagnosis time per run (process, incl. opening the store): median {secs[len(secs) // 2] * 1000:.0f} ms, "
          f"max {secs[-1] * 1000:.0f} ms")
    errs = [e for r in runs for e in r["errors"]]
    if errs:
        print(f"query errors: {len(errs)}, e.g. {errs[0]}")


if __name__ == "__main__":
    main()
