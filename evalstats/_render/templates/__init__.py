"""The jinja2 templates of the report and document skeletons, and the one function that
renders them.

HTML templates (``*.html.j2``) escape every value unless it is marked ``|safe`` (the
tables, rendered by pandas' Styler, and the figures). LaTeX templates use the delimiters
of nbconvert's LaTeX templates (``((( value )))``, ``((* block *))``, ``((= comment =))``)
so that LaTeX's braces need no escaping; their values go through the filters ``tex``
(:func:`~evalstats._render.escape.latex_escape`) and ``prose``
(:func:`~evalstats._render.escape.latex_prose`). Markdown templates use ``md``
(:func:`~evalstats._render.escape.md_escape`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from ..escape import latex_escape, latex_prose, md_escape

__all__ = ["render_template"]

_LATEX_SYNTAX = dict(block_start_string="((*", block_end_string="*))",
                     variable_start_string="(((", variable_end_string=")))",
                     comment_start_string="((=", comment_end_string="=))")


@cache
def _environment(latex: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("evalstats._render", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",),
                                            default_for_string=False),
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined, **(_LATEX_SYNTAX if latex else {}))
    env.filters.update(tex=latex_escape, prose=latex_prose, md=md_escape)
    return env


def render_template(name: str, **context: Any) -> str:
    """Render the template ``name`` (``section.html.j2``, ``document.tex.j2``, ...)."""
    return _environment(".tex." in name).get_template(name).render(**context)
