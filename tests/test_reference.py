"""evalstats against reference values computed by R (tests/reference/make_reference.R).

The CSVs were written by ``Rscript make_reference.R`` (R and package versions in
``tests/reference/versions.txt``); R prints 15 significant digits, hence ``rtol=1e-12``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalstats as es

REF = Path(__file__).parent / "reference"
BINOM = pd.read_csv(REF / "binomial.csv")


@pytest.mark.parametrize("row", BINOM.to_dict("records"),
                         ids=lambda r: f"{r['k']:g}/{r['n']:g}@{r['level']}")
@pytest.mark.parametrize("method", ["exact", "wilson", "jeffreys"])
def test_error_ci_against_R(row, method):
    # R: binom.test (exact), prop.test(correct = FALSE) (wilson), qbeta equal tails (jeffreys)
    k, n = int(row["k"]), int(row["n"])
    y = np.zeros(n, int)
    p = np.r_[np.ones(k, int), np.zeros(n - k, int)]
    res = es.error_ci(y, p, confidence_level=row["level"], method=method)
    lo, hi = res.conf_int()
    np.testing.assert_allclose([lo, hi], [row[f"{method}_low"], row[f"{method}_high"]],
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("row", BINOM[BINOM.level == 0.95].to_dict("records"),
                         ids=lambda r: f"{r['k']:g}/{r['n']:g}")
def test_error_ci_p_value_against_R(row):
    # R: binom.test(k, n, p = 0.5)$p.value
    k, n = int(row["k"]), int(row["n"])
    res = es.error_ci(np.zeros(n, int), np.r_[np.ones(k, int), np.zeros(n - k, int)], null=0.5)
    np.testing.assert_allclose(res.p_value, row["p_value_half"], rtol=1e-10)


def test_loss_ci_against_R_t_test():
    # R: t.test(x, conf.level = level)
    x = np.array((REF / "ttest_data.txt").read_text().strip().split(","), float)
    for row in pd.read_csv(REF / "ttest.csv").to_dict("records"):
        res = es.loss_ci(x, confidence_level=row["level"])
        np.testing.assert_allclose(res.estimate, row["mean"], rtol=1e-12)
        # 1e-10: SciPy 1.15.0's t quantile differs from later releases by ~1e-11 (relative)
        np.testing.assert_allclose(res.conf_int(), [row["low"], row["high"]], rtol=1e-10)


def test_auc_ci_against_R_pROC_delong():
    # R: pROC::ci.auc(roc(y, s, direction = "<"), method = "delong"); pROC clips at 1
    y_txt, s_txt = (REF / "auc_data.txt").read_text().strip().splitlines()
    y = np.array(y_txt.split(","), int)
    s = np.array(s_txt.split(","), float)
    for row in pd.read_csv(REF / "auc_delong.csv").to_dict("records"):
        res = es.auc_ci(y, s, confidence_level=row["level"])
        np.testing.assert_allclose(res.estimate, row["auc"], rtol=1e-12)
        np.testing.assert_allclose(res.std_error**2, row["var"], rtol=1e-10)
        lo, hi = res.conf_int()
        np.testing.assert_allclose(lo, row["low"], rtol=1e-10)
        assert hi <= 1.0
        np.testing.assert_allclose(min(hi, 1.0), row["high"], rtol=1e-10)
