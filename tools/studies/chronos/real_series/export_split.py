"""Writes the train or validation series of split.tsv, one CSV per series, to OUT_DIR.

Series on a calendar get a date column (YYYY-MM monthly and quarterly, YYYY yearly); the rest
(trading days, half hours, ice-core depths) a value column only. Leading and trailing missing
values are dropped, inner ones written NA. Choices about the forecaster (and about
`harmonic forecast`'s defaults) are measured on the validation series, never on the test series
(export_r_datasets.R). Sources: statsmodels (PyPI) and the Debian packages r-cran-forecast and
r-cran-tseries, read through Rscript.

  python export_split.py {train,validation} OUT_DIR
"""
import csv
import math
import os
import subprocess
import sys

import statsmodels.api as sm

R_COMMON = """
write_ts <- function(x, name, out, dates = TRUE) {
  x <- na.trim(x)
  t <- time(x); year <- floor(t + 1e-9); f <- frequency(x)
  value <- ifelse(is.na(x), "NA", format(as.numeric(x), digits = 15, trim = TRUE))
  table <- if (!dates) data.frame(value = value)
           else if (f == 1) data.frame(date = sprintf("%04d", year), value = value)
           else data.frame(date = sprintf("%04d-%02d", year, round((t - year) * 12) + 1), value = value)
  write.csv(table, file.path(out, paste0(name, ".csv")), row.names = FALSE, quote = FALSE)
}
write_columns <- function(m, prefix, out, dates = TRUE)
  for (c in colnames(m)) write_ts(m[, c], paste0(prefix, "_", sub("_$", "", gsub("[^A-Za-z0-9.]+", "_", c))), out, dates)
out <- commandArgs(trailingOnly = TRUE)[1]
suppressMessages({library(zoo); library(forecast); library(tseries)})
"""

R_SERIES = {
    "validation": """
data(bev, package = "tseries"); data(nino, package = "tseries")
write_ts(wineind, "wineind", out); write_ts(woolyrnq, "woolyrnq", out); write_ts(bev, "bev", out)
write_ts(nino3, "nino3", out); write_ts(nino3.4, "nino3.4", out)
""",
    "train": """
for (d in c("tcm", "USeconomic", "NelPlo", "camp", "tcmd", "ice.river")) data(list = d, package = "tseries")
write_ts(gas, "gas", out)
write_columns(tcm, "tcm", out); write_columns(USeconomic, "USeconomic", out); write_columns(NelPlo, "NelPlo", out)
write_ts(camp, "camp", out, dates = FALSE); write_ts(gold, "gold", out, dates = FALSE)
write_ts(taylor, "taylor", out, dates = FALSE)
write_columns(tcmd, "tcmd", out, dates = FALSE); write_columns(ice.river, "ice.river", out, dates = FALSE)
""",
}


def write(out, name, dates, values):
    with open(os.path.join(out, name + ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["date", "value"])
        w.writerows(zip(dates, values))


def fertility(out, validation):
    """Every fifth country in Country Code order (from the first) validates; the others train."""
    data = sm.datasets.fertility.load_pandas().data.sort_values("Country Code").reset_index(drop=True)
    years = [c for c in data.columns if c.isdigit()]
    for i in range(len(data)):
        if (i % 5 == 0) != validation:
            continue
        row = data.iloc[i]
        pairs = [(y, row[y]) for y in years if not math.isnan(row[y])]  # observed years only
        if len(pairs) >= 36:
            write(out, f"fertility_{row['Country Code']}", *zip(*pairs))


def quarterly(out, prefix, frame, columns):
    dates = [f"{int(y):04d}-{3 * (int(q) - 1) + 1:02d}" for y, q in zip(frame["year"], frame["quarter"])]
    for column in columns:
        write(out, f"{prefix}_{column}", dates, frame[column].tolist())


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in R_SERIES:
        sys.exit(__doc__)
    split, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    subprocess.run(["Rscript", "-e", R_COMMON + R_SERIES[split], out], check=True)
    if split == "validation":
        elnino = sm.datasets.elnino.load_pandas().data
        months = [c for c in elnino.columns if c != "YEAR"]
        pairs = [(f"{int(row['YEAR']):04d}-{m + 1:02d}", row[name])
                 for _, row in elnino.iterrows() for m, name in enumerate(months)]
        write(out, "elnino", *zip(*pairs))
        danish = sm.datasets.danish_data.load_pandas().data
        for column in danish.columns:
            write(out, f"danish_{column}", [d.strftime("%Y-%m") for d in danish.index], danish[column].tolist())
    else:
        macro = sm.datasets.macrodata.load_pandas().data
        quarterly(out, "macrodata", macro, [c for c in macro.columns if c not in ("year", "quarter")])
        rates = sm.datasets.interest_inflation.load_pandas().data
        quarterly(out, "interest_inflation", rates, ["Dp", "R"])
    fertility(out, split == "validation")
    print(f"wrote {len(os.listdir(out))} {split} series to {out}")


if __name__ == "__main__":
    main()
