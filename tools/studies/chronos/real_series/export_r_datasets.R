# The held-out real series: every univariate time series of R's base `datasets` package with a
# frequency of 1, 4 or 12, at least 36 points and no missing value, one CSV per series
# (date,value; the date column only for series on a calendar, YYYY-MM monthly and quarterly,
# YYYY yearly). These series are never used for training or for any choice of the forecaster
# (bins, head, size, context, steps): they judge it.
#
#   Rscript export_r_datasets.R OUT_DIR    # r-base-core from Debian (apt-get install r-base-core)
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript export_r_datasets.R OUT_DIR")
out <- args[1]
dir.create(out, showWarnings = FALSE, recursive = TRUE)
items <- sort(sub(" .*", "", data(package = "datasets")$results[, "Item"]))
written <- 0
for (name in items) {
  x <- tryCatch(get(name, envir = asNamespace("datasets")), error = function(e) NULL)
  if (is.null(x) || !identical(class(x), "ts") || !(frequency(x) %in% c(1, 4, 12))) next
  if (length(x) < 36 || anyNA(x)) next
  f <- frequency(x)
  t <- time(x)
  year <- floor(t + 1e-9)
  value <- format(as.numeric(x), digits = 15, trim = TRUE)
  if (start(x)[1] >= 1000) {
    month <- round((t - year) * 12) + 1
    date <- if (f == 1) sprintf("%04d", year) else sprintf("%04d-%02d", year, month)
    table <- data.frame(date = date, value = value)
  } else {
    table <- data.frame(value = value)  # no calendar (steps 1, 2, ... or years before 1000)
  }
  write.csv(table, file.path(out, paste0(name, ".csv")), row.names = FALSE, quote = FALSE)
  written <- written + 1
}
cat(sprintf("wrote %d series to %s\n", written, out))
