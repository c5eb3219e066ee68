"""Writes OUT/summary.md for the forecaster candidates trained by train.sh: per candidate the
parameter count, steps, wall time, and the validation scores (relative to seasonal naive,
< 1 better) at the evaluation with the lowest val_mase_sets (the monitor), plus every
evaluation's val_mase_sets. Rebuilds the same file from the same metrics.

  python3 summarize.py OUT
"""
import json
import os
import sys


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main(out):
    names = sorted(d for d in os.listdir(out) if os.path.isfile(os.path.join(out, d, "metrics.jsonl")))
    rows, curves = [], []
    for name in names:
        metrics = read_jsonl(os.path.join(out, name, "metrics.jsonl"))
        evals = [m for m in metrics if "val_mase_sets" in m]
        if not evals:
            continue
        best = min(evals, key=lambda m: m["val_mase_sets"])
        last = metrics[-1]
        with open(os.path.join(out, name, "config.json")) as f:
            config = json.load(f)
        task = config.get("task", config)
        rows.append((best["val_mase_sets"], name, task, best, last))
        curves.append((name, evals))
    lines = ["# Forecaster candidates on the validation series", "",
             "Validation side of ../../split.tsv (53 series in 7 data sets), last 12 points of each held out,",
             "`harmonic forecast --eval`'s protocol; relative to seasonal naive (< 1 better). `sets`: each data",
             "set weighs the same (the geometric mean over sets); `series`: each series (44 of 53 are yearly",
             "fertility series). Sorted by the monitor, val MASE (sets), at its best evaluation.", "",
             "| candidate | d_model x layers | context | head | bins | real mixtures | steps | best at | MASE (sets) | WQL (sets) | MASE (series) | WQL (series) | minutes |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for _, name, t, best, last in sorted(rows, key=lambda r: r[0]):
        real = t.get("real_mixup_series", 0) if t.get("real_series") else "none"
        lines.append(
            f"| {name} | {t['d_model']} x {t['num_layers']} | {t['context_length']} | {t['head']} | {t['n_tokens']} "
            f"| {real} | {last['step']} | {best['step']} | {best['val_mase_sets']:.4f} | {best['val_wql_sets']:.4f} "
            f"| {best['val_mase']:.4f} | {best['val_wql']:.4f} | {last['time'] / 60:.1f} |")
    lines += ["", "val MASE (sets) at each evaluation:", ""]
    for name, evals in curves:
        lines.append(f"- {name}: " + ", ".join(f"{m['step']}: {m['val_mase_sets']:.4f}" for m in evals))
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
