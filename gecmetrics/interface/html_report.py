"""The HTML report: one self-contained page renders a report's typed data.

``gecmetrics report`` renders a :class:`~gecmetrics.workflows.report_data.ReportData`
(:func:`render_report`) and ``gecmetrics meta-eval --html`` a
:class:`~gecmetrics.meta_eval.results.MetaEvaluation` (:func:`render_meta_eval`).
The page needs no network when it is viewed: its style sheet and script
(``report_assets/``, small vanilla JavaScript, no framework, no build step) are
inlined, the data is embedded as JSON (``<script type="application/json">``) and
the views are built from it in the browser; figures are inline SVG. This module
sits above the results it renders; they never import it.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

from gecmetrics.interface.score_report import column_label
from gecmetrics.paths import atomic_output
from gecmetrics.version import __version__
from gecmetrics.workflows.report_data import ReportData, report_json

if TYPE_CHECKING:
    from gecmetrics.meta_eval.results import MetaEvaluation

#: What the explorer can sort sentences by (value, label), the first the default.
SORTS: tuple[tuple[str, str], ...] = (
    ("index", "sentence number"),
    ("disagreement", "metric disagreement"),
    ("absdiff", "|score A - score B|"),
    ("difference", "score A - score B"),
    ("score", "score of system A"),
    ("length", "source length"),
)


def asset(name: str) -> str:
    """The text of ``report_assets/NAME`` (installed with the package)."""
    folder = resources.files("gecmetrics.interface") / "report_assets"
    return (folder / name).read_text(encoding="utf-8")


def embed_json(value: Any) -> str:
    """``value`` as JSON that is safe inside ``<script>``: no ``</`` can end the
    element early, and no NaN (JSON has none; the data holds null instead)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def page(title: str, nav: Sequence[tuple[str, str]], body: str, data: Any) -> str:
    """The whole document: ``nav`` (section id, tab label) over ``body``'s sections."""
    tabs = "".join(
        f'<button type="button" role="tab" id="tab-{sid}" aria-controls="{sid}">'
        f"{html.escape(label)}</button>" for sid, label in nav)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # no request may leave the page: scripts and styles inline only
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{html.escape(title)}</title>\n<style>\n{asset('report.css')}</style>\n"
        f"</head>\n<body>\n<header><h1>{html.escape(title)}</h1>\n"
        f'<p class="muted">Made by gecmetrics {html.escape(__version__)}; '
        "self-contained: it opens offline in any current browser.</p></header>\n"
        f'<nav role="tablist" aria-label="views">{tabs}</nav>\n<main>\n{body}\n</main>\n'
        f'<script type="application/json" id="report-data">{embed_json(data)}</script>\n'
        f"<script>\n{asset('report.js')}</script>\n</body>\n</html>\n")


def render_report(data: ReportData, title: str = "gecmetrics report") -> str:
    """The page of ``gecmetrics report``: a leaderboard and a sentence explorer."""
    labels = _labels(data)
    sorts = "".join(f'<option value="{v}">{html.escape(t)}</option>' for v, t in SORTS)
    signatures = "".join(f"<li><b>{html.escape(label)}</b>: "
                         f'<span class="sig">{html.escape(c.signature)}</span></li>'
                         for label, c in zip(labels, data.columns, strict=True))
    signatures += "".join(f"<li><b>attribution, {html.escape(spec)}</b>: "
                          f'<span class="sig">{html.escape(sig)}</span></li>'
                          for spec, sig in data.attribution_signatures.items())
    test = _test_line(data)
    edits = {"errant": "ERRANT's edits and error types",
             "diff": "a token diff (operations only: R replaced, M missing, U unnecessary)"
             }.get(data.edit_source, data.edit_source)
    baseline = ('<div class="controls"><label for="baseline">baseline'
                '<select id="baseline"></select></label></div>' if test else "")
    body = f"""<section id="board" role="tabpanel" aria-labelledby="tab-board">
<h2>Leaderboard</h2>
<p class="note">Corpus scores in percent. {html.escape(test)}</p>
{baseline}<div id="leaderboard-table"></div>
<h2>Signatures</h2><ul>{signatures}</ul>
</section>
<section id="explorer" role="tabpanel" aria-labelledby="tab-explorer">
<h2>Sentences</h2>
<p class="note">Edits against the source: {html.escape(edits)}. Insertions are
<ins class="e op-M">underlined</ins>, deletions <del class="e op-U">struck through</del>;
hover an edit for its type. Press Enter on a sentence to open it; arrow keys move.</p>
<div class="controls">
<label for="search">search<input id="search" type="search"
 placeholder="text in any line, or #N"></label>
<label for="sort">sort by<select id="sort">{sorts}</select></label>
<label for="metric">metric<select id="metric"></select></label>
<label for="system-a">system A<select id="system-a"></select></label>
<label for="system-b">system B<select id="system-b"></select></label>
<label for="type">edit type<select id="type"><option value="">any</option></select></label>
{_attribution_controls(data, labels)}</div>
{_attribution_note(data)}
<p id="status" class="muted" role="status" aria-live="polite"></p>
<ol id="sentence-list"></ol>
<button type="button" id="more" hidden>more</button>
</section>"""
    return page(title, [("board", "Leaderboard"), ("explorer", "Sentences")], body,
                report_json(data, labels, title))


#: The attribution methods as the page names them.
METHOD_NAMES = {"shapley": "Shapley values", "sampling": "sampled Shapley values",
                "add": "add-one attributions", "remove": "remove-one attributions"}


def _attribution_controls(data: ReportData, labels: Sequence[str]) -> str:
    """The "colour edits by" choice (one option per attributed metric, the first
    chosen, and "none") and the legend of the diverging scale; "" without
    attributions. The script fills the legend's numbers (the scale is per metric)."""
    if not data.attributions:
        return ""
    options: list[tuple[str, str]] = []
    for label, c in zip(labels, data.columns, strict=True):
        if c.spec in data.attributions and c.spec not in (o[0] for o in options):
            options.append((c.spec, label))
    choices = "".join(f'<option value="{html.escape(spec)}">{html.escape(label)}</option>'
                      for spec, label in options)
    return ('<label for="attr-metric">colour edits by<select id="attr-metric">'
            f'{choices}<option value="">none (operation colours)</option></select></label>\n'
            '<div id="attr-legend" class="attr-legend" role="img" '
            'aria-label="attribution colour scale">'
            '<span class="attr-end">&minus;<span id="attr-min"></span> penalised</span>'
            '<span class="attr-bar" aria-hidden="true"></span>'
            '<span class="attr-end">rewarded +<span id="attr-max"></span></span></div>')


def _attribution_note(data: ReportData) -> str:
    """What the attribution colours mean, or ""."""
    if not data.attributions or data.attribution_method is None:
        return ""
    method = METHOD_NAMES.get(data.attribution_method, data.attribution_method)
    return ('<p class="note" id="attr-note">Edit colours: each system edit\'s share of its '
            f"sentence's score change ({html.escape(method)}; docs/attribution.md) under the "
            "chosen metric, in percentage points: blue raises the score, red lowers it, "
            "deeper is larger (the scale's ends are the metric's 95th percentile of |value|); "
            "a + or &minus; after the edit and its tooltip say the same without colour. "
            "Reference edits keep the operation colours.</p>")


def _labels(data: ReportData) -> list[str]:
    """Column labels as ``gecmetrics score``'s tables write them (unique)."""
    return [column_label(c.corpus[0]) if c.corpus else c.metric for c in data.columns]


def _test_line(data: ReportData) -> str:
    """What the significance marks mean, or "" without a paired test."""
    paired = next((c.paired[0][0] for c in data.columns if c.paired), None)
    if paired is None:
        return ""
    test = ("paired bootstrap" if paired.test == "bs" else "approximate randomization")
    untested = [label for label, c in zip(_labels(data), data.columns, strict=True)
                if not c.paired]
    left = (f" No marks for {', '.join(untested)}: its bootstrap rescores the corpus for "
            "every resample (slow); --paired-bootstrap N tests it too." if untested else "")
    return (f"Marks against the baseline ({test}, {paired.samples} "
            f"{'resamples' if paired.test == 'bs' else 'trials'}, seed {paired.seed}): "
            "▲ significantly better, ▼ significantly worse (p < 0.05), · not "
            "significant; hover a score for delta, 95% interval and p." + left)


# -- meta-evaluation -----------------------------------------------------------------


def render_meta_eval(result: MetaEvaluation, title: str = "gecmetrics meta-evaluation") -> str:
    """The page of ``meta-eval --html``: correlation tables (sortable), the text
    tables of every analysis run, and its figures as inline SVG (tables only,
    with a note, without matplotlib)."""
    from gecmetrics.meta_eval.render import render_evaluation

    rows, _ = render_evaluation(result, "json")
    objects = json.loads(rows)
    text, _ = render_evaluation(result, "table")
    figures, note = svg_figures(result)
    parts = ['<section id="correlations" role="tabpanel" aria-labelledby="tab-correlations">',
             "<h2>Correlations</h2>", _rows_table(objects),
             "<h2>All tables</h2>", f"<pre>{html.escape(text)}</pre>", "</section>",
             '<section id="figures" role="tabpanel" aria-labelledby="tab-figures">',
             "<h2>Figures</h2>"]
    if note:
        parts.append(f'<p class="note">{html.escape(note)}</p>')
    for name, svg in figures:
        parts.append(f"<figure><figcaption>{html.escape(name)}</figcaption>{svg}</figure>")
    parts.append("</section>")
    return page(title, [("correlations", "Correlations"), ("figures", "Figures")],
                "\n".join(parts), {"kind": "meta-eval", "rows": objects})


def _rows_table(objects: Any) -> str:
    """The JSON rows' scalar fields as one sortable table (floats in percent or to 4
    digits; nested fields left to the text tables)."""
    if not isinstance(objects, list) or not objects:
        return '<p class="note">no correlation rows</p>'
    keys = [k for k in dict.fromkeys(k for o in objects for k in o)
            if all(not isinstance(o.get(k), dict | list) for o in objects) and k != "signature"]
    head = "".join(f'<th scope="col">{html.escape(k)}</th>' for k in keys)
    body = []
    for o in objects:
        cells = []
        for k in keys:
            v = o.get(k)
            shown = ("" if v is None else f"{v:.4f}" if isinstance(v, float) else str(v))
            cls = ' class="text"' if isinstance(v, str) else ""
            cells.append(f"<td{cls}>{html.escape(shown)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="sortable"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def svg_figures(result: MetaEvaluation) -> tuple[list[tuple[str, str]], str]:
    """(name, inline SVG) of every figure the run's rows can draw (the beta sweep
    and each registered analysis with a figure and rows), drawn by the same
    functions as ``--plot`` and the analyses' plot options; and a note when
    matplotlib is missing (then none)."""
    import importlib.util

    from gecmetrics.meta_eval.analyses import ANALYSES
    from gecmetrics.meta_eval.plot import plot_sweeps

    if importlib.util.find_spec("matplotlib") is None:
        return [], ('matplotlib is not installed: figures are left out, the tables above '
                    'hold the numbers (pip install ".[plot]" for figures)')
    draws: list[tuple[str, Any]] = []
    if result.sweeps:
        draws.append(("beta sweep", lambda p: plot_sweeps(result.sweeps, p)))
    for analysis in ANALYSES:
        rows = result.analysis_rows(analysis.name)
        if analysis.figure is not None and rows:
            draws.append((analysis.name.replace("_", " "),
                          lambda p, a=analysis, r=rows: a.figure(r, p)))
    out = []
    with tempfile.TemporaryDirectory(prefix="gecmetrics-svg-") as folder:
        for i, (name, draw) in enumerate(draws):
            path = os.path.join(folder, f"{i}.svg")
            draw(path)
            with open(path, encoding="utf-8") as f:
                out.append((name, inline_svg(f.read())))
    return out, ""


def inline_svg(text: str) -> str:
    """An SVG file's ``<svg>`` element, for inlining (no XML declaration or DOCTYPE)."""
    start = text.find("<svg")
    return text[start:] if start >= 0 else text


def write_html(text: str, path: str) -> str:
    """Write ``text`` to ``path`` whole or not at all (:func:`gecmetrics.paths.atomic_output`)."""
    with atomic_output(path) as part, open(part, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def size_note(path: str) -> str:
    """The line naming the report written, with its size."""
    size = os.path.getsize(path)
    shown = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"
    return f"report written to {path} ({shown})"
