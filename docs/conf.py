"""Sphinx configuration of the evalstats documentation.

Build: ``pip install -e ".[docs]" && sphinx-build -W -b html docs docs/_build/html``.

* The API reference (``api.rst``) is written at every build from ``evalstats.__all__`` and
  the capability modules' ``__all__`` (:func:`api_names`), so a new public name always
  gets a page.
* The vignettes (``vignettes/*.py``, jupytext percent format with Markdown narrative) are
  copied into ``vignettes/`` here and executed by myst-nb through jupytext, with their
  output and figures. ``EVALSTATS_VIGNETTE_FAST`` is ``1`` unless set (small problem
  sizes); ``EVALSTATS_DOCS_EXECUTE=0`` renders them without running them. Without the
  shared datasets (``EVALSTATS_DATA``) their public-data parts skip themselves.
* Intersphinx links to numpy, scipy, pandas and statsmodels use an inventory found in
  ``EVALSTATS_DOCS_INVENTORIES`` (``<project>.inv``) or, when the site answers, the
  online one; an inventory that is neither is left out, so an offline build has plain
  names instead of links and no warning.
"""

from __future__ import annotations

import os
import sys
import urllib.request
from pathlib import Path

import evalstats

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))

from evalstats_docs import copy_vignettes, plain_bars, write_api_page  # noqa: E402

project = "evalstats"
author = "evalstats developers"
copyright = "evalstats developers"
release = version = evalstats.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.intersphinx",
              "sphinx.ext.mathjax", "numpydoc", "myst_nb"]
templates_path = ["_templates"]
exclude_patterns = ["_build", "_ext", "conf.py", "**.ipynb_checkpoints", "jupyter_execute"]
html_theme = "alabaster"
html_theme_options = {"description": "Statistics for evaluating classifiers",
                      "page_width": "1100px", "sidebar_width": "230px"}
html_static_path: list[str] = []
html_title = f"evalstats {release}"

autosummary_generate = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()

# -- vignettes ----------------------------------------------------------------------------
nb_custom_formats = {".py": "evalstats_docs.read_vignette"}
nb_execution_mode = "off" if os.environ.get("EVALSTATS_DOCS_EXECUTE") == "0" else "force"
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_execution_in_temp = True
nb_merge_streams = True
myst_enable_extensions = ["dollarmath"]
os.environ.setdefault("EVALSTATS_VIGNETTE_FAST", "1")
# executed vignettes show their figures inline (the kernels inherit this environment)
try:
    import matplotlib_inline  # noqa: F401
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
except ImportError:
    os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("TQDM_DISABLE", "1")


# -- intersphinx --------------------------------------------------------------------------
_INVENTORIES = {"python": "https://docs.python.org/3/",
                "numpy": "https://numpy.org/doc/stable/",
                "scipy": "https://docs.scipy.org/doc/scipy/",
                "pandas": "https://pandas.pydata.org/docs/",
                "statsmodels": "https://www.statsmodels.org/stable/"}


def _reachable(url: str) -> bool:
    if os.environ.get("EVALSTATS_DOCS_OFFLINE") == "1":
        return False
    try:
        with urllib.request.urlopen(url + "objects.inv", timeout=5) as resp:
            return resp.status == 200
    except (OSError, ValueError):
        return False


def intersphinx_projects() -> dict[str, tuple[str, str | None]]:
    local = Path(os.environ.get("EVALSTATS_DOCS_INVENTORIES", HERE / "_inventories"))
    out = {}
    for name, url in _INVENTORIES.items():
        inv = local / f"{name}.inv"
        if inv.is_file():
            out[name] = (url, str(inv))
        elif _reachable(url):
            out[name] = (url, None)
    return out


copy_vignettes(ROOT / "vignettes", HERE / "vignettes")
write_api_page(HERE / "api.rst")
intersphinx_mapping = intersphinx_projects()


def setup(app):
    app.connect("autodoc-process-docstring", plain_bars)
