# Reference values for evalstats' fixed-test-set intervals, computed by R.
# Run from this folder:  Rscript make_reference.R
# Writes: binomial.csv, ttest.csv, auc_delong.csv, versions.txt
# The tests (tests/test_reference.py) compare evalstats against these files with rtol 1e-10.
options(digits = 17)
cases <- data.frame(k = c(0, 1, 3, 17, 50, 99, 100), n = c(20, 20, 30, 60, 100, 100, 100))
rows <- list()
for (i in seq_len(nrow(cases))) {
  k <- cases$k[i]; n <- cases$n[i]
  for (lev in c(0.90, 0.95, 0.99)) {
    cp <- binom.test(k, n, conf.level = lev)$conf.int                 # Clopper-Pearson
    wi <- prop.test(k, n, conf.level = lev, correct = FALSE)$conf.int   # Wilson (score)
    a <- (1 - lev) / 2                                                  # Jeffreys, equal tails
    jl <- if (k == 0) 0 else qbeta(a, k + 0.5, n - k + 0.5)
    jh <- if (k == n) 1 else qbeta(1 - a, k + 0.5, n - k + 0.5)
    rows[[length(rows) + 1]] <- data.frame(k = k, n = n, level = lev,
      exact_low = cp[1], exact_high = cp[2], wilson_low = wi[1], wilson_high = wi[2],
      jeffreys_low = jl, jeffreys_high = jh,
      p_value_half = binom.test(k, n, p = 0.5)$p.value)
  }
}
write.csv(do.call(rbind, rows), "binomial.csv", row.names = FALSE)

x <- c(0.1, 0.4, 0.35, 0.8, 0.2, 0.05, 0.66, 0.31)
tt <- list()
for (lev in c(0.90, 0.95, 0.99)) {
  r <- t.test(x, conf.level = lev)
  tt[[length(tt) + 1]] <- data.frame(level = lev, mean = unname(r$estimate),
    low = r$conf.int[1], high = r$conf.int[2], df = unname(r$parameter))
}
write.csv(do.call(rbind, tt), "ttest.csv", row.names = FALSE)
writeLines(paste(x, collapse = ","), "ttest_data.txt")

suppressMessages(library(pROC))
y <- c(0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0)
s <- c(0.1, 0.8, 0.4, 0.3, 0.9, 0.7, 0.6, 0.2, 0.65, 0.85, 0.45, 0.55, 0.35, 0.05, 0.5, 0.7)
au <- list()
for (lev in c(0.90, 0.95)) {
  r <- roc(y, s, direction = "<", levels = c(0, 1), quiet = TRUE)
  ci <- ci.auc(r, conf.level = lev, method = "delong")
  au[[length(au) + 1]] <- data.frame(level = lev, auc = as.numeric(auc(r)),
    low = ci[1], high = ci[3], var = var(r, method = "delong"))
}
write.csv(do.call(rbind, au), "auc_delong.csv", row.names = FALSE)
writeLines(c(paste(y, collapse = ","), paste(s, collapse = ",")), "auc_data.txt")
writeLines(c(R.version.string, paste("pROC", packageVersion("pROC"))), "versions.txt")
