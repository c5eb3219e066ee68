"""The statistical baselines on the protocol of `harmonic forecast --eval` over a directory.

Every *.csv of the directory is one series (the `value` column, or the only numeric one); the
last HORIZON points are held out; the season length m comes from the date column's step as
`harmonic forecast` infers it (12 monthly, 4 quarterly, 1 yearly or without dates). Each of
statsforecast's AutoETS, AutoARIMA, AutoTheta and SeasonalNaive forecasts the tail with the
quantiles 0.1 .. 0.9 (its prediction intervals at 20, 40, 60 and 80 %, the mean as the median),
scored with nn/forecast_metrics.h's formulas: MASE of the median and WQL over the nine quantiles,
each divided by the seasonal-naive point forecast's, geometric mean over the series.

  python statsforecast_baselines.py DIR [--horizon 12] [--json OUT.json]

statsforecast comes from PyPI into the benchmark environment (.ci/install-deps --with-torch,
then pip install statsforecast); nothing of Harmonic needs it.
"""
import argparse
import csv
import json
import math
import os
import time

import numpy as np
import pandas as pd
from statsforecast import StatsForecast
from statsforecast.models import AutoARIMA, AutoETS, AutoTheta, SeasonalNaive

LEVELS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]


def read_series(path):
    """(values, season length) of a file written like export_r_datasets.R's."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    values = np.array([float(r["value"]) for r in rows])
    m = 1
    if "date" in rows[0]:
        first, second = rows[0]["date"], rows[1]["date"]
        if len(first) == 7:  # YYYY-MM: the step in months
            step = (int(second[:4]) - int(first[:4])) * 12 + int(second[5:]) - int(first[5:])
            m = 12 // step if 12 % step == 0 else 1
    return values, m


# nn/forecast_metrics.cpp, line for line.
def effective_season(n, m):
    return m if n >= m + 1 else 1


def naive_scale(y, m):
    m = effective_season(len(y), m)
    return float(np.mean(np.abs(y[m:] - y[:-m])))


def naive_forecast(y, h, m):
    m = min(effective_season(len(y), m), len(y))
    out = []
    for i in range(h):  # a missing value: the same season's latest observed one
        t = len(y) - m + (i % m)
        while t - m >= 0 and not math.isfinite(y[t]):
            t -= m
        out.append(y[t])
    return np.array(out)


def mase(y, truth, forecast, m):
    scale = naive_scale(y, m)
    return float(np.mean(np.abs(truth - forecast)) / scale) if scale > 0 else math.nan


def wql(truth, quantiles):
    denom = float(np.sum(np.abs(truth)))
    if not denom > 0:
        return math.nan
    total = 0.0
    for q, f in zip(LEVELS, quantiles):
        u = truth - f
        total += 2 * float(np.sum(np.maximum(q * u, (q - 1) * u))) / denom
    return total / len(LEVELS)


def geometric_mean(ratios):
    kept = [r for r in ratios if math.isfinite(r) and r > 0]
    return math.exp(sum(math.log(r) for r in kept) / len(kept)) if kept else math.nan


def quantiles_of(frame, name):
    """The nine quantile forecasts from statsforecast's intervals (q < 0.5: lo-(100 - 200 q))."""
    out = []
    for q in LEVELS:
        if q == 0.5:
            out.append(frame[name].to_numpy())
        else:
            level = round(abs(100 - 200 * q))
            out.append(frame[f"{name}-{'lo' if q < 0.5 else 'hi'}-{level}"].to_numpy())
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("--horizon", type=int, default=12)
    parser.add_argument("--json", help="write the per-series scores and the aggregates here")
    args = parser.parse_args()
    H = args.horizon
    names = ["AutoETS", "AutoARIMA", "AutoTheta", "SeasonalNaive"]
    per_series, seconds = [], {n: 0.0 for n in names}
    for file in sorted(f for f in os.listdir(args.dir) if f.endswith(".csv")):
        y_all, m = read_series(os.path.join(args.dir, file))
        history, truth = y_all[:-H], y_all[-H:]
        naive = naive_forecast(history, H, m)
        base_mase, base_wql = mase(history, truth, naive, m), wql(truth, [naive] * len(LEVELS))
        row = {"series": file[:-4], "m": m, "naive_mase": base_mase, "naive_wql": base_wql}
        df = pd.DataFrame({"unique_id": 0, "ds": np.arange(len(history)), "y": history})
        for name, model in zip(names, [AutoETS(season_length=m), AutoARIMA(season_length=m),
                                       AutoTheta(season_length=m), SeasonalNaive(season_length=m)]):
            start = time.perf_counter()
            frame = StatsForecast(models=[model], freq=1, n_jobs=1).forecast(df=df, h=H, level=[20, 40, 60, 80])
            seconds[name] += time.perf_counter() - start
            qs = quantiles_of(frame, name)
            row[name] = {"mase": mase(history, truth, qs[4], m), "wql": wql(truth, qs)}
        per_series.append(row)
        print(f"{row['series']:<16} m={m:<3}" + "".join(
            f" {n} {row[n]['mase']:.3f}/{row[n]['wql']:.3f}" for n in names), flush=True)
    summary = {}
    for name in names:
        ratios = [(r[name]["mase"] / r["naive_mase"], r[name]["wql"] / r["naive_wql"]) for r in per_series]
        kept = [(a, b) for a, b in ratios if all(math.isfinite(v) and v > 0 for v in (a, b))]
        summary[name] = {"relative_mase": geometric_mean([a for a, _ in kept]),
                         "relative_wql": geometric_mean([b for _, b in kept]),
                         "series": len(kept), "seconds": seconds[name]}
    print(f"relative to seasonal naive (each series' m), geometric mean over {len(per_series)} series, horizon {H}:")
    for name, s in summary.items():
        print(f"  {name:<14} MASE {s['relative_mase']:.4f}  WQL {s['relative_wql']:.4f}  "
              f"({s['series']} series, {s['seconds']:.1f} s)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"horizon": H, "summary": summary, "series": per_series}, f, indent=1)


if __name__ == "__main__":
    main()
