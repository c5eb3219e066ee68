"""Writes the validation series of split.tsv, one CSV per series (date,value), to OUT_DIR.

Choices about the forecaster (and about `harmonic forecast`'s defaults) are measured on these,
never on the test series (export_r_datasets.R). Sources: statsmodels (PyPI) and the Debian
packages r-cran-forecast and r-cran-tseries, read through Rscript.

  python export_validation.py OUT_DIR
"""
import csv
import os
import subprocess
import sys

import statsmodels.api as sm

R_SERIES = """
write_ts <- function(x, name, out) {
  t <- time(x); year <- floor(t + 1e-9)
  f <- frequency(x)
  date <- if (f == 1) sprintf("%04d", year) else sprintf("%04d-%02d", year, round((t - year) * 12) + 1)
  write.csv(data.frame(date = date, value = format(as.numeric(x), digits = 15, trim = TRUE)),
            file.path(out, paste0(name, ".csv")), row.names = FALSE, quote = FALSE)
}
out <- commandArgs(trailingOnly = TRUE)[1]
library(forecast); library(tseries)
data(bev, package = "tseries"); data(nino, package = "tseries")
write_ts(wineind, "wineind", out); write_ts(woolyrnq, "woolyrnq", out); write_ts(bev, "bev", out)
write_ts(nino3, "nino3", out); write_ts(nino3.4, "nino3.4", out)
"""


def write(out, name, dates, values):
    with open(os.path.join(out, name + ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["date", "value"])
        w.writerows(zip(dates, values))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    subprocess.run(["Rscript", "-e", R_SERIES, out], check=True, capture_output=True)
    elnino = sm.datasets.elnino.load_pandas().data
    months = [c for c in elnino.columns if c != "YEAR"]
    dates, values = [], []
    for _, row in elnino.iterrows():
        for m, name in enumerate(months):
            dates.append(f"{int(row['YEAR']):04d}-{m + 1:02d}")
            values.append(row[name])
    write(out, "elnino", dates, values)
    danish = sm.datasets.danish_data.load_pandas().data
    for column in danish.columns:
        write(out, f"danish_{column}", [d.strftime("%Y-%m") for d in danish.index], danish[column].tolist())
    fertility = sm.datasets.fertility.load_pandas().data.sort_values("Country Code").reset_index(drop=True)
    years = [c for c in fertility.columns if c.isdigit()]
    for i in range(0, len(fertility), 5):
        row = fertility.iloc[i]
        pairs = [(y, row[y]) for y in years if row[y] == row[y]]  # observed years only
        if len(pairs) >= 36:
            write(out, f"fertility_{row['Country Code']}", *zip(*pairs))
    print(f"wrote {len(os.listdir(out))} series to {out}")


if __name__ == "__main__":
    main()
