"""Dataset catalogue, bundled data and public loaders."""

from __future__ import annotations

import numpy as np
import pytest

from evalstats import datasets


def test_catalogue_columns():
    cat = datasets.list_datasets()
    assert list(cat.columns) == ["name", "title", "shape", "task", "source", "licence",
                                 "bundled", "available"]
    assert {"sim_pool", "sim_multiclass", "digits_pool", "spambase", "letter"} <= set(cat.name)
    assert cat["name"].is_unique


def test_bundled_sim_pool():
    pool = datasets.load("sim_pool")
    assert pool.shape == (20_000, 5)
    assert set(pool["label"].unique()) == {0, 1}
    assert 0.02 < pool["label"].mean() < 0.05          # documented: about 3 %
    assert pool["prob"].between(0, 1).all()
    # pred is the documented threshold rule on the calibrated probability
    assert ((pool["prob"] >= 0.35).astype(int) == pool["pred"]).all()


def test_bundled_sim_multiclass_bundle():
    b = datasets.load("sim_multiclass")
    assert b.scores.shape == (300, 100) and b.labels.shape == (300,)
    assert b.truth is not None and list(b.truth.columns) == ["k", "accuracy"]
    assert (np.diff(b.truth["accuracy"]) < 0).all()       # accuracy falls with k
    acc_k1 = np.mean(b.scores.argmax(axis=1) == b.labels)
    true_k1 = np.interp(100, b.truth["k"], b.truth["accuracy"])
    assert abs(acc_k1 - true_k1) < 0.1                    # 300 test points: s.e. ~ 0.03
    assert "ScoreBundle" in repr(b)


def test_bundled_digits_pool():
    df = datasets.load("digits_pool")
    probs = df[[f"prob_{j}" for j in range(10)]].to_numpy()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert (probs.argmax(axis=1) == df["pred"]).all()


def test_unknown_name_message():
    with pytest.raises(ValueError, match="`name` must be one of 'sim_pool'"):
        datasets.load("covtype")


def test_missing_public_dataset_message(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALSTATS_DATA", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(datasets, "find_shared_datasets", lambda: None)
    with pytest.raises(datasets.DatasetNotFoundError, match="spambase/spambase.data.gz"):
        datasets.load("spambase")


@pytest.mark.parametrize("name,shape,check", [
    ("spambase", (4601, 58), lambda df: abs(df["spam"].mean() - 0.394) < 0.001),
    ("connect4", (67557, 43), lambda df: abs((df["class"] == "draw").mean() - 0.0955) < 1e-3),
    ("letter", (20000, 17), lambda df: df["letter"].nunique() == 26),
    ("shuttle", (58000, 10), lambda df: df["target"].nunique() == 7),
    ("er_abt_buy", (53753, 4), lambda df: df["label"].sum() == round(0.0009 * 53753, -1) or
     df["label"].mean() < 0.001),
    ("tweets100k", (20000, 3), lambda df: abs(df["label"].mean() - 0.502) < 0.001),
    ("weather", (18159, 9), lambda df: True),
    ("electricity", (45312, 7), lambda df: True),
])
def test_public_loaders_parse_shared_copies(shared_datasets, name, shape, check):
    # counts from each dataset's README in ../shared/datasets
    df = datasets.load(name, data_home=shared_datasets)
    assert df.shape == shape
    assert check(df)


def test_omniglot_loader(shared_datasets):
    d = datasets.load("omniglot", data_home=shared_datasets)
    assert d["X"].shape == (4840, 784)
    assert len(np.unique(d["y"])) == 242


def test_every_bundled_file_is_packaged():
    # the wheel ships evalstats/datasets/data/* through [tool.setuptools.package-data]
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["evalstats.datasets"]
    files = [p.relative_to(root / "evalstats" / "datasets").as_posix()
             for p in (root / "evalstats" / "datasets" / "data").iterdir()]
    assert files
    for f in files:
        assert any(fnmatch.fnmatch(f, pat) for pat in patterns), f


def test_download_parses_uci_zip(tmp_path, monkeypatch):
    # the downloader unpacks the UCI zip member into <home>/<name>/<file>.gz
    import io
    import urllib.request
    import zipfile

    buf = io.BytesIO()
    rows = "\n".join(",".join(["0"] * 57 + [str(i % 2)]) for i in range(4))
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("spambase.data", rows + "\n")

    class _Resp(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: _Resp(buf.getvalue()))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("EVALSTATS_DATA", raising=False)
    monkeypatch.setattr(datasets, "find_shared_datasets", lambda: None)
    df = datasets.load("spambase", data_home=tmp_path / "home", download=True)
    assert df.shape == (4, 58) and df["spam"].tolist() == [0, 1, 0, 1]
    assert (tmp_path / "home" / "spambase" / "spambase.data.gz").exists()
