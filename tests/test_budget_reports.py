"""What a reader sees of the budget results: headers and captions in words, findings
that state a conclusion without identifiers, ``glance()`` with facts of the whole result,
and docstrings without history or private modules."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from evalstats import budget as eb

#: notation and codes a reader does not use: set sizes, the paper's symbols, equation
#: numbers, abbreviations, identifiers of the result's own columns
JARGON = (r"\|[SLU]", r"\beps_", r"\beq\.? ?\d", r"\bHT\b", r"\bn_total\b", r"\bSec\. ",
          r"\+/-", r"\b[a-z]+_[a-z0-9_]+\b")


def _rng_pool():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    return X, (X[:, 0] > 1.2).astype(int)


def _examples() -> dict:
    X, y = _rng_pool()
    lab = np.array([1, 0, 1, 0, 0, 1, 0, 0])
    rules = {"wide": np.array([1, 0, 1, 1, 0, 1, 1, 0]),
             "narrow": np.array([1, 0, 0, 0, 0, 1, 0, 0])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "plan": eb.plan_labels(20_000, 0.03, 0.05, half_width=0.02),
            "search": eb.plan_labels(20_000, 0.03, 0.05, half_width=0.05, strategy="positives"),
            "rules": eb.evaluate_rules(lab, rules, eb.LabelDesign.stratified(lab, {1: 40, 0: 960})),
            "tradeoff": eb.tradeoff(0.05, 0.1, n_pool=10_000, n_labels=500),
            "retrieval": eb.guided_sample(X, y, 60, n_seed=20, batch_size=10, rng=1),
            "bound": eb.bernstein_bound("precision", n_pool=10_000, prevalence=0.04,
                                     rule_rate=0.1, n_labeled_positive=200),
        }


@pytest.fixture(scope="module")
def examples():
    return _examples()


@pytest.mark.parametrize("name", ["plan", "search", "rules", "tradeoff", "retrieval",
                                  "bound"])
def test_titles_headers_captions_and_findings_are_in_words(examples, name):
    rep = examples[name].summary()
    shown = [rep.title, rep.finding, *(cap for cap, _ in rep.tables + rep.appendix)]
    shown += [f"{k} {v}" for k, v in rep.header.items() if k != "Call"]
    for text in shown:
        for pattern in JARGON:
            assert not re.search(pattern, str(text)), (pattern, text)
    assert rep.finding.endswith(".") and rep.finding[0].isupper()


# -- LabelPlan -------------------------------------------------------------------------------
def test_plan_tidy_names_the_target_half_width_as_the_argument():
    # a cost weight C divides the target by sqrt(C) (plan_labels' docstring): 0.02 / 2
    plan = eb.plan_labels(20_000, 0.03, 0.05, half_width=0.02, costs={"specificity": 4})
    td = plan.tidy()
    assert "target_half_width" not in td.columns
    by_measure = td.groupby("measure")["half_width"].unique()
    assert list(by_measure["specificity"]) == [pytest.approx(0.01)]
    assert list(by_measure["precision"]) == [pytest.approx(0.02)]
    assert (td["achieved_half_width"] <= td["half_width"] + 1e-12).all()


def test_plan_glance_is_one_row_about_the_whole_plan(examples):
    plan = examples["plan"]
    g = plan.glance().iloc[0]
    head = plan.headline()
    # the labels to buy are the headline plan's maximum over the measures
    assert g["n_labels"] == plan.n_total == head["n_total"].max() == 17_486
    assert g["method"] == "random labels, exact bound (any rule)"
    assert (g["n_pool"], g["prevalence"], g["rule_rate"]) == (20_000, 0.03, 0.05)
    assert g["all_feasible"] and g["joint"] and g["n_rules"] == 1
    three = eb.plan_labels(20_000, 0.03, 0.05, half_width=0.02, n_rules=3)
    assert three.glance()["n_rules"].iloc[0] == 3


def test_plan_header_says_the_pool_in_words_and_the_mean_only_for_a_search(examples):
    hdr = examples["plan"].summary().header
    assert hdr["Data"] == ("pool of 20,000 items, prevalence 0.03 (known), rules that flag "
                           "5% of the pool")
    assert "Mean labels to buy" not in hdr           # random labels: the count is fixed
    search = examples["search"]
    assert search.summary().header["Mean labels to buy"] == round(search.n_total_mean)


def test_blind_labeling_is_an_appendix_in_words(examples):
    rep = examples["search"].summary()
    assert not any("lind" in cap for cap, _ in rep.tables)
    (cap, table), = [(c, t) for c, t in rep.appendix if "lind" in c]
    assert "Section 4.1" in cap and "items added as negatives" in table.columns


def test_plan_findings_say_what_to_do_or_why_not():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        capped = eb.plan_labels(20_000, 0.03, 0.05, half_width=0.02, max_labels=100)
    assert not capped.feasible
    assert capped._finding().startswith("The target cannot be met")
    loose = eb.plan_labels(20_000, 0.03, 0.05, half_width=0.5)
    assert loose.n_total == 0 and loose._finding().startswith("No label is needed")


# -- TradeoffResult --------------------------------------------------------------------------
def test_tradeoff_glance_holds_each_pairs_ratio_as_an_identifier(examples):
    g = examples["tradeoff"].glance().iloc[0]
    es_, er = 0.05, 0.1
    # closed forms (3.22), (3.25), (3.29) of Valizadegan et al. (2012)
    a = er * (1 - er) * es_
    b = es_ ** 3 * (1 - er)
    expected = {"precision_specificity": a / ((1 - es_) ** 3 + a) / es_,
                "sensitivity_specificity": b / (b + er * (1 - es_) ** 3) / es_,
                "rule_rate_equals_prevalence": es_ / (es_ ** 2 + (1 - es_) ** 2)}
    for pair, ratio in expected.items():
        assert g[f"prevalence_ratio_{pair}"] == pytest.approx(ratio, rel=1e-12)
    assert (g["n_pool"], g["n_labels"]) == (10_000, 500)
    finding = examples["tradeoff"]._finding()
    assert finding.endswith("label more positives than a random sample would.")


# -- RetrievalResult -------------------------------------------------------------------------
def test_retrieval_tidy_has_one_row_per_round():
    X, y = _rng_pool()
    res = eb.guided_sample(X, y, 63, n_seed=20, batch_size=10, rng=1)
    td = res.tidy()
    # a seed of 20, then rounds of 10; the last round takes the 3 left
    assert td["labels"].tolist() == [20, 10, 10, 10, 10, 3]
    assert td["step"].tolist() == ["random seed"] + ["guided"] * 5
    curve = res.positives_curve()
    assert td["positives_cumulative"].tolist() == curve[td["labels_cumulative"] - 1].tolist()
    g = res.glance().iloc[0]
    assert (g["n_rounds"], g["batch_size"], g["n_positive"]) == (5, 10, int(y[res.indices].sum()))
    rnd = eb.guided_sample(X, y, 40, strategy="random", rng=1)
    assert len(rnd.tidy()) == 1 and rnd.glance()["batch_size"].iloc[0] is None
    assert "simple random sample" in rnd._finding()
    assert "not a probability sample" in res._finding()


# -- RuleEvaluation and BoundResult ----------------------------------------------------------
def test_rule_evaluation_names_its_estimator_and_the_rules_at_the_ends(examples):
    ev = examples["rules"]
    assert ev.method == "stratified ratio estimator (Horvitz–Thompson)"
    prec = ev.table[ev.table["measure"] == "precision"].set_index("rule")["estimate"]
    low, high = prec.idxmin(), prec.idxmax()
    assert low != high
    assert (f"precision ranges from {prec[low]:.2f} ({low}) to {prec[high]:.2f} ({high})"
            in ev._finding().lower())
    assert ev.summary().header["Data"] == ("a stratified random sample (2 strata) of a pool "
                                           "of 1,000 items")
    simple = eb.evaluate_rules([1, 0, 1, 0], [1, 1, 0, 0], eb.LabelDesign.simple(100, 4))
    assert simple.data == "a simple random sample of a pool of 100 items"
    assert simple._finding().startswith("Precision of rule_0 is 0.5")


def test_bound_findings_say_what_the_interval_promises(examples):
    b = examples["bound"]
    lo, hi = b.conf_int()
    assert b.method == "Bernstein bound, hypergeometric model"
    assert f"[{lo:.3f}, {hi:.3f}]" in b._finding() and "random rule" in b._finding()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        det = eb.bernstein_bound("precision", n_pool=1000, n_pool_positive=50,
                              n_rule_positive=100, n_labeled_positive=30,
                              rule_hits_positive=20)
    # deterministic range: (20 + 0)/100 to (20 + 20)/100 with 20 positives unlabeled
    assert "[0.20, 0.40]" in det._finding() and "deterministic range" in det._finding()


# -- docstrings ------------------------------------------------------------------------------
def test_budget_docstrings_hold_no_history_and_no_private_module_of_the_api():
    from test_style import _ROT, _docstrings

    root = Path(__file__).resolve().parents[1] / "evalstats" / "budget"
    public = {"_bound.py", "_labelplan.py", "_plan.py", "_retrieval.py", "_rules.py",
              "_tradeoff.py"}
    found = []
    for f in sorted(root.glob("*.py")):
        for name, doc in _docstrings(f):
            patterns = _ROT + ((r"evalstats\.budget\._\w+",) if f.name in public else ())
            found += [f"{f.name}:{name}: {m.group(0)!r}" for p in patterns
                      for m in re.finditer(p, doc)]
    assert not found, "\n".join(found)
