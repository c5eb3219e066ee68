"""Summarises defaults.sh's runs into OUT/defaults.md: per setting, the validation MASE and WQL
relative to seasonal naive (each data set weighing the same, then each series), mean +- std over
the forecast seeds. A data set is a file stem's part before its first '_' (as the chronos task's
val_mase_sets). Rebuilds the same file from the same tables."""
import math
import os
import re
import statistics
import sys
from collections import defaultdict


def scores(path):
    """(mase_sets, mase_series, wql_sets, wql_series) of one `forecast --eval` table."""
    ratios = {"mase": [], "wql": []}
    for line in open(path):
        f = line.split()
        if len(f) != 6 or f[0] == "series":
            continue
        name, _, mase, mase_naive, wql, wql_naive = f[0], f[1], *map(float, f[2:])
        for key, v, naive in (("mase", mase, mase_naive), ("wql", wql, wql_naive)):
            if naive > 0 and math.isfinite(v) and v > 0:
                ratios[key].append((name.split("_")[0], v / naive))

    def gmean(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs))

    out = []
    for key in ("mase", "wql"):
        by_set = defaultdict(list)
        for s, r in ratios[key]:
            by_set[s].append(r)
        out += [gmean([gmean(v) for v in by_set.values()]), gmean([r for _, r in ratios[key]])]
    return out[0], out[1], out[2], out[3]


def main(out):
    runs = defaultdict(list)
    for f in sorted(os.listdir(out)):
        m = re.fullmatch(r"(samples\d+_\w+_topk\d+)_seed(\d+)\.txt", f)
        if m:
            runs[m.group(1)].append(scores(os.path.join(out, f)))

    def cell(vals):
        return f"{statistics.mean(vals):.4f} ± {statistics.stdev(vals):.4f}" if len(vals) > 1 else f"{vals[0]:.4f}"

    lines = ["# The shipped forecaster's sampling defaults on the validation series", "",
             "`bash tools/studies/chronos/real_series/forecaster/defaults.sh OUT`: `harmonic forecast --eval --horizon 12`",
             "with models/pretrained/chronos-real-d64 over the validation side of ../../split.tsv (53 series in",
             "7 data sets), relative to seasonal naive (< 1 better), mean ± std over forecast seeds 0-2.",
             "`sets`: each data set weighs the same; `series`: each series.", "",
             "| samples | quantiles from | top-k | seeds | MASE sets | MASE series | WQL sets | WQL series |",
             "|---|---|---|---|---|---|---|---|"]
    def key(k):
        s, q, t = re.fullmatch(r"samples(\d+)_(\w+)_topk(\d+)", k).groups()
        return int(s), q, int(t)
    for k in sorted(runs, key=key):
        s, q, t = key(k)
        cols = list(zip(*runs[k]))
        lines.append(f"| {s} | {q} | {t} | {len(runs[k])} | " + " | ".join(cell(list(c)) for c in
                                                                          (cols[0], cols[1], cols[2], cols[3])) + " |")
    open(os.path.join(out, "defaults.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
