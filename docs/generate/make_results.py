"""Regenerate docs/results.md: run every meta-evaluation, write tables and figures, fill the page.

    python docs/generate/make_results.py DATA_DIR  # or: sh docs/generate/make-results.sh DATA_DIR
    python docs/generate/make_results.py --fill-only  # refill the page from docs/results/ (no runs)
    python docs/generate/make_results.py --only zoo,pairs [DATA_DIR]  # rerun these, refill the rest

DATA_DIR defaults to $GECMETRICS_DATA, else $XDG_CACHE_HOME/gecmetrics, else
~/.cache/gecmetrics (gecmetrics.paths.data_dir). Every table comes
from one ``gecmetrics meta-eval`` command (printed on the page above the table):
its arguments are parsed by the CLI's own parser into the same options, run
through the library (:func:`gecmetrics.meta_eval.api.run`) and rendered as
Markdown (and JSON for Table 2) from the typed result, written to
docs/results/NAME.md; figures go to docs/img/. The page's prose lives in
docs/generate/results.template.md; ``{{NAME}}`` placeholders are replaced by the table
docs/results/NAME.md, ``{{cmd:NAME}}`` by the command that made it, and a few
computed blocks (``{{side_by_side}}``, ``{{tuned}}``, ...) by tables built here
from the outputs. Published values are read from data/published/ (gecmetrics.published),
as the acceptance tests read them.

ERRANT: once the ``errant`` extra is installed, set ``ERRANT=errant:references=text``
(the GREEN paper's setting) in the environment (or change ``ERRANT`` below); it
then joins every metric list (with text references it also runs on GMEG).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

from gecmetrics.paths import data_dir

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RESULTS = DOCS / "results"
IMG = DOCS / "img"
TEMPLATE = DOCS / "generate" / "results.template.md"
PAGE = DOCS / "results.md"

# ---- metric sets ---------------------------------------------------------------------
ERRANT = os.environ.get("ERRANT", "").split()  # e.g. ERRANT=errant:references=text
WORD_GREEN, CHAR_GREEN = "green", "green:tokenize=char,n=6"
WORD_GLEU_PAPER, CHAR_GLEU_PAPER = "gleu:variant=paper", "gleu:variant=paper,tokenize=char,n=6"
GLEU, CHRF, M2 = "gleu", "chrf", "m2"
GREEN = [WORD_GREEN, CHAR_GREEN]
# The GREEN paper's Table 2 metrics, then extra rows (official GLEU, chrF, ERRANT).
TABLE2 = GREEN + [WORD_GLEU_PAPER, CHAR_GLEU_PAPER, M2, GLEU, CHRF] + ERRANT
# M2 needs M2 gold edits: conll14 and SEEDA, not GMEG (text references only).
GMEG = [m for m in TABLE2 if m != M2]
# Beta sweeps and cross-validated beta*: the metrics with a beta that the paper sweeps.
SWEEP = GREEN + [M2] + ERRANT
# Bootstrap intervals and comparisons: GLEU stays out (each of its resamples averages
# 500 reference draws, about 1 min per benchmark for 1000 resamples).
CI = GREEN + [CHRF, M2] + ERRANT
CI_GMEG = [m for m in CI if m != M2]
# Metrics added after the GREEN paper's table: BLEU (sacrebleu's) and I-measure (no
# mixing of references: CoNLL-2014 sentence 333 has 2^34 combinations).
BLEU, IMEASURE = "bleu", "imeasure:mix=false"
# Edit-based metrics on ERRANT's edits (the errant extra, like ERRANT itself).
EDIT_ZOO = ["gotoscorer", "cleme", "cleme2"] if ERRANT else []
ZOO = [BLEU, IMEASURE, *EDIT_ZOO]
# The pair statistics (pairwise accuracy, tie-calibrated accuracy) for every metric.
PAIRS = TABLE2 + ZOO
# Human-like aggregation (Goto et al. 2025): metrics with sentence scores.
AGGREGATE = GREEN + [M2, GLEU, CHRF] + ERRANT + EDIT_ZOO
# Robustness to adversarial outputs (--attacks): every reference-based metric that runs on a
# CPU here; the neural reference-free metrics need model weights this run does not have.
ROBUST = GREEN + [GLEU, CHRF, BLEU, M2, IMEASURE] + ERRANT + EDIT_ZOO
ATTACKS = ["Attack-SOME", "Attack-Scribendi", "Attack-IMPARA", "Attack-LLM"]


def _m(specs: list[str]) -> list[str]:
    return [arg for spec in specs for arg in ("-m", spec)]


SEEDA_ALL = ["--seeda-corpus", "all"]
BOTH_LEVELS = ["--level", "corpus", "--level", "mean"]
GRID = ["--sweep-beta", "0:5:0.01"]
BOOT = ["--bootstrap", "1000", "--compare"]


def _tuned() -> dict[str, tuple[float, float, float, float]]:
    """Japanese GREEN paper, Table 2 (CoNLL): spec -> (beta*(r), r, beta*(rho), rho)."""
    from gecmetrics.published import load

    return {spec: (v["beta_r"], v["r"], v["beta_rho"], v["rho"])
            for spec, v in load("green-paper-ja-table2").values.items()}


TUNED = _tuned()

# (name, meta-eval arguments); docs/results/NAME.md gets the markdown output.
RUNS: list[tuple[str, list[str]]] = [
    ("table2", ["conll14", "seeda-s", "seeda-e", *_m(TABLE2), *SEEDA_ALL, *BOTH_LEVELS]),
    ("subset", ["seeda-s", "seeda-e", *_m(TABLE2), "--seeda-corpus", "subset", *BOTH_LEVELS]),
    ("sweep-conll14", ["conll14", *_m(SWEEP), *GRID, "--plot", "docs/img/beta-sweep-conll14.png"]),
    ("tuned-betas", ["conll14", *_m(GREEN),
                     *[a for b in sorted({b for t in TUNED.values() for b in (t[0], t[2])})
                       for a in ("-b", f"{b:g}")]]),
    ("sweep-seeda", ["seeda-s", "seeda-e", *_m(SWEEP), *SEEDA_ALL, *GRID,
                     "--plot", "docs/img/beta-sweep-seeda.png"]),
    ("gmeg-test", ["gmeg-fce", "gmeg-wiki", *_m(GMEG), "--split", "test"]),
    ("gmeg-dev", ["gmeg-fce", "gmeg-wiki", *_m(GMEG), "--split", "dev"]),
    ("gmeg-ci", ["gmeg-fce", "gmeg-wiki", *_m(CI_GMEG), *BOOT]),
    ("ci-ew", ["conll14", "seeda-s", "seeda-e", *_m(CI), *SEEDA_ALL, "--human", "ew", *BOOT]),
    ("ci-ts", ["conll14", "seeda-s", "seeda-e", *_m(CI), *SEEDA_ALL, "--human", "ts", *BOOT]),
    ("sentence", ["seeda-s", "seeda-e", "conll14", *_m(TABLE2), "--sentence-level"]),
    ("sentence-all", ["seeda-s", "seeda-e", *_m(TABLE2), "--sentence-level", "--systems", "all"]),
    ("window-seeda-s", ["seeda-s", *_m(TABLE2), *SEEDA_ALL, "--window", "4",
                        "--window-plot", "docs/img/window-seeda-s.png"]),
    ("cv-beta", ["conll14", "seeda-s", *_m(SWEEP), *SEEDA_ALL, "--cv-beta", "10"]),
    ("cv-beta-gmeg", ["gmeg-fce", "gmeg-wiki", *_m([m for m in SWEEP if m != M2]),
                      "--cv-beta", "10"]),
    ("zoo", ["conll14", "seeda-s", "seeda-e", *_m(ZOO), *SEEDA_ALL, *BOTH_LEVELS]),
    ("pairs", ["conll14", "seeda-s", "seeda-e", *_m(PAIRS), *SEEDA_ALL, "--pairwise",
               "--tie-calibration"]),
    ("spa-clusters", ["seeda-s", *_m(CI), *SEEDA_ALL, "--spa", "--clusters", "spa"]),
    ("aggregation", ["seeda-s", "seeda-e", *_m(AGGREGATE), "--level", "corpus",
                     "--level", "ew", "--level", "trueskill"]),
    ("attacks", ["conll14", "seeda-s", *_m(ROBUST), *SEEDA_ALL, "--attacks"]),
    ("rank-pairs", ["seeda-s", "-m", WORD_GREEN, "--rank-pairs", "--rank-pairs-plot",
                    "docs/img/rank-pairs-seeda-s.png"]),
]


def command(args: list[str], fmt: str = "markdown") -> list[str]:
    return ["gecmetrics", "meta-eval", *args, "--format", fmt]


def shown(args: list[str]) -> str:
    """The command as printed on the page (data dir left to $GECMETRICS_DATA)."""
    return " ".join(shlex.quote(a) for a in command(args))


def run(args: list[str], data: str) -> tuple[object, float]:
    """The meta-evaluation of ``gecmetrics meta-eval ARGS`` (figures saved) and its time."""
    import gecmetrics.interface.cli  # noqa: F401 (the commands import the CLI first)
    from gecmetrics.errors import GecMetricsError
    from gecmetrics.interface.commands.meta_eval import meta_eval, options_from_click
    from gecmetrics.meta_eval.api import run as evaluate
    from gecmetrics.meta_eval.figures import save_figures

    start = time.perf_counter()
    try:
        ctx = meta_eval.make_context("meta-eval", [*args, "--data-dir", data])
        result = evaluate(options_from_click(ctx))
        save_figures(result)
    except GecMetricsError as err:
        sys.exit(f"failed: {shown(args)}\nerror: {err}")
    return result, time.perf_counter() - start


def text(result: object, fmt: str = "markdown") -> str:
    """``result`` as the CLI prints it in ``fmt``."""
    from gecmetrics.meta_eval.render import render_evaluation

    return render_evaluation(result, fmt)[0].rstrip("\n") + "\n"  # type: ignore[arg-type]


# ---- reading outputs -----------------------------------------------------------------
def tables(markdown: str) -> list[list[dict[str, str]]]:
    """Every markdown table of a text, as rows of {header: cell} (bold marks removed)."""
    found, block = [], []
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            block.append([c.strip().replace("**", "") for c in line.strip("|").split("|")])
        elif block:
            head, *rows = block
            found.append([dict(zip(head, row, strict=True)) for row in rows[1:]])
            block = []
    return found


def published() -> tuple[list[tuple], dict]:
    """The GREEN paper's Table 2 rows and the cells we do not reproduce (data/published)."""
    from gecmetrics.published import load

    table = load("green-paper-table2")
    rows = [(v["benchmark"], v["spec"], v["level"], v["pearson"], v["spearman"])
            for v in table.values]
    differences = {(c["benchmark"], c["spec"], c["level"], c["which"]): c["ours"]
                   for c in table.extra["not_reproduced"]["cells"]}
    return rows, differences


def normal(spec: str) -> str:
    from gecmetrics.registry import metric_from_spec

    return metric_from_spec(spec).spec


def side_by_side(ours_json: str) -> tuple[str, str]:
    """The published/ours table for the GREEN paper's Table 2, and the differences list."""
    rows, differences = published()
    ours = {(r["benchmark"], r["spec"], r["level"]): r for r in json.loads(ours_json)}
    benches = ["conll14", "seeda-s", "seeda-e"]
    order = list(dict.fromkeys(spec for _, spec, _, _, _ in rows))
    keys = sorted(dict.fromkeys((spec, level) for _, spec, level, _, _ in rows),
                  key=lambda k: (order.index(k[0]), k[1]))
    pub = {(b, s, lv): (r, rho) for b, s, lv, r, rho in rows}
    head = ["metric", "spec", "level"] + [f"{b} {w}" for b in benches for w in ("r", "ρ")]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join([":--"] * 3 + ["--:"] * (len(head) - 3)) + "|"]
    marks, notes, same, total = {}, [], 0, 0
    per_metric: dict[str, list[int]] = {}
    for bench, spec, level, which in differences:
        marks[(bench, spec, level, which)] = f"[{len(marks) + 1}]"
    for spec, level in keys:
        name = None
        cells = []
        for bench in benches:
            r = ours.get((bench, normal(spec), level))
            if r is None:
                sys.exit(f"table2 has no row for {bench} {spec} {level}")
            name = r["metric"]
            for which, key, value in (("r", "pearson", 0), ("rho", "spearman", 1)):
                p, o = pub[(bench, spec, level)][value], r[key]
                total += 1
                count = per_metric.setdefault(name, [0, 0])
                count[1] += 1
                count[0] += f"{o:.3f}" == f"{p:.3f}"
                mark = marks.get((bench, spec, level, which), "")
                if f"{o:.3f}" == f"{p:.3f}":
                    same += 1
                    if mark:
                        sys.exit(f"{bench} {spec} {level} {which} now matches; update the "
                                 "not_reproduced cells of data/published/green-paper-table2.json"
                                 " and the page")
                    cells.append(f"{p:.3f} / {o:.3f}")
                else:
                    if not mark:
                        sys.exit(f"{bench} {spec} {level} {which}: ours {o:.5f}, published "
                                 f"{p:.3f}, not listed in data/published/green-paper-table2.json")
                    cells.append(f"{p:.3f} / **{o:.3f}** {mark}")
                    notes.append((mark, bench, name, spec, level, which, p, o))
        lines.append("| " + " | ".join([name, spec, level] + cells) + " |")
    counts = ", ".join(f"{name} {a} of {b}" for name, (a, b) in per_metric.items())
    summary = (f"{same} of {total} values (r and ρ of {len(rows)} cells) are the published "
               f"ones to the third decimal ({counts}); {total - same} differ, marked in the "
               "table:")
    diff = [summary, ""]
    for mark, bench, name, spec, level, which, p, o in notes:
        symbol = "r" if which == "r" else "ρ"
        low, high = p - 0.0005, p + 0.0005
        outside = o - high if o >= high else o - low
        diff.append(f"- {mark} {bench}, {name} (`{spec}`), {level} level: ours {symbol} = "
                    f"{o:.5f}, published {p:.3f} (which stands for [{low:.4f}, {high:.4f})); "
                    f"ours is {abs(outside):.5f} {'above' if outside > 0 else 'below'} that "
                    "interval.")
    return "\n".join(lines), "\n".join(diff)


def _cell(rows: list[dict[str, str]], key: dict[str, str], column: str) -> str:
    for row in rows:
        if all(row.get(k) == v for k, v in key.items()):
            return row[column]
    sys.exit(f"no row {key} with column {column!r}")


def tuned(outputs: dict[str, str]) -> str:
    """Published tuned betas (Japanese GREEN paper) next to our sweep, fixed betas and CV."""
    sweep = tables(outputs["sweep-conll14"])[0]
    fixed = tables(outputs["tuned-betas"])[0]
    cv = tables(outputs["cv-beta"])[1]
    head = ["metric", "published β*(r), r", "ours: sweep β*(r), r", "ours: r at published β*",
            "ours: CV β*, r at β*", "published β*(ρ), ρ", "ours: sweep β*(ρ), ρ",
            "ours: ρ at published β*"]
    lines = ["| " + " | ".join(head) + " |", "|:--|" + "--:|" * (len(head) - 1)]
    for spec, (b_r, r, b_rho, rho) in TUNED.items():
        s = {"spec": spec}
        name = _cell(sweep, s, "metric")
        lines.append("| " + " | ".join([
            name, f"{b_r:g}, {r:.3f}",
            f"{_cell(sweep, s, 'conll14 β*(r)')}, {_cell(sweep, s, 'conll14 r')}",
            _cell(fixed, {**s, "β": f"{b_r:g}"}, "conll14 r"),
            f"{_cell(cv, {**s, 'benchmark': 'conll14'}, 'β* (CV)')}, "
            f"{_cell(cv, {**s, 'benchmark': 'conll14'}, 'r at β*')}",
            f"{b_rho:g}, {rho:.3f}",
            f"{_cell(sweep, s, 'conll14 β*(ρ)')}, {_cell(sweep, s, 'conll14 ρ')}",
            _cell(fixed, {**s, "β": f"{b_rho:g}"}, "conll14 ρ")]) + " |")
    return "\n".join(lines)


def chrf_conll14(outputs: dict[str, str]) -> str:
    parts = []
    for human in ("ew", "ts"):
        rows = tables(outputs[f"ci-{human}"])[0]
        key = {"spec": CHRF}
        parts.append(f"r = {_cell(rows, key, 'conll14 r')} with {human.upper()} "
                     f"(95% CI {_cell(rows, key, 'conll14 r 95% CI')})")
    return " and ".join(parts)


def cv_edges(outputs: dict[str, str]) -> str:
    """Which cross-validated optima sit at the edge of the beta grid (0 or 5)."""
    rows = tables(outputs["cv-beta"])[1] + tables(outputs["cv-beta-gmeg"])[1]
    every, some = [], []
    for r in rows:
        if r["β* (CV)"] == "-":
            continue
        low, high = (float(x) for x in r["fold optima"].split("-"))
        name = f"{r['benchmark']} {r['metric']}"
        if low == high and low in (0.0, 5.0):
            every.append(name)
        elif low == 0.0 or high == 5.0:
            some.append(name)
    text = []
    if every:
        text.append(f"The optimum is at the edge of the grid (0 or 5) in every fold for "
                    f"{', '.join(every)}: r is highest at the end of the grid, so the optimum "
                    "may lie beyond it.")
    if some:
        text.append(f"Some folds' optima are at the edge for {', '.join(some)}.")
    return " ".join(text) or "No fold's optimum is at the edge of the grid (0 or 5)."


def attacks_summary(outputs: dict[str, str]) -> str:
    """Per metric and attack, its rank among the real systems on each benchmark, from the
    --attacks table (the section whose rows name an attack)."""
    rows = next(t for t in tables(outputs["attacks"]) if t and "attack" in t[0])
    benches = list(dict.fromkeys(r["benchmark"] for r in rows))
    metrics = list(dict.fromkeys((r["metric"], r["spec"]) for r in rows))
    head = ["metric", "spec", *ATTACKS, "attacks above a real system"]
    lines = ["| " + " | ".join(head) + " |", "|:--|:--|" + "--:|" * (len(head) - 2)]
    for name, spec in metrics:
        cells, above = [], 0
        for attack in ATTACKS:
            ranks = []
            for bench in benches:
                key = {"benchmark": bench, "spec": spec, "attack": attack}
                ranks.append(_cell(rows, key, "rank"))
                above += _cell(rows, key, "beats").split("/")[0] != "0"
            cells.append(" · ".join(ranks))
        lines.append("| " + " | ".join([name, f"`{spec}`", *cells, str(above)]) + " |")
    return "\n".join(lines)


def timing_table(times: list[tuple[str, float]]) -> str:
    lines = ["| table | seconds |", "|:--|--:|"]
    lines += [f"| `{name}` | {took:.1f} |" for name, took in times]
    return "\n".join(lines)


def main() -> None:
    args = sys.argv[1:]
    fill_only = "--fill-only" in args
    args = [a for a in args if a != "--fill-only"]
    only: set[str] | None = None
    if "--only" in args:
        k = args.index("--only")
        only = set(args[k + 1].split(","))
        del args[k:k + 2]
        unknown = only - {name for name, _ in RUNS}
        if unknown:
            sys.exit(f"--only: unknown run(s) {', '.join(sorted(unknown))}")
    data = args[0] if args else str(data_dir())
    RESULTS.mkdir(exist_ok=True)
    IMG.mkdir(exist_ok=True)
    template = TEMPLATE.read_text()
    outputs: dict[str, str] = {}
    times: list[tuple[str, float]] = []
    if fill_only:
        outputs = {name: (RESULTS / f"{name}.md").read_text() for name, _ in RUNS}
        table2_json = (RESULTS / "table2.json").read_text()
        times = [tuple(t) for t in json.loads((RESULTS / "timings.json").read_text())]
    else:
        saved = (dict(json.loads((RESULTS / "timings.json").read_text()))
                 if only is not None else {})
        for name, run_args in RUNS:
            if only is not None and name not in only:
                outputs[name] = (RESULTS / f"{name}.md").read_text()
                if name == "table2":
                    table2_json = (RESULTS / "table2.json").read_text()
                times.append((name, saved[name]))
                continue
            print(f"{name}: {shown(run_args)}", file=sys.stderr, flush=True)
            result, took = run(run_args, data)
            outputs[name] = text(result)
            (RESULTS / f"{name}.md").write_text(outputs[name])
            if name == "table2":  # the same result at full precision
                table2_json = text(result, "json")
                (RESULTS / "table2.json").write_text(table2_json)
            times.append((name, took))
            print(f"  {took:.1f} s", file=sys.stderr, flush=True)
        (RESULTS / "timings.json").write_text(json.dumps(times) + "\n")
    total = sum(took for _, took in times)
    sbs, diffs = side_by_side(table2_json)
    fill = {name: out.rstrip("\n") for name, out in outputs.items()}
    fill |= {f"cmd:{name}": shown(args) for name, args in RUNS}
    fill |= {
        "side_by_side": sbs, "differences": diffs, "tuned": tuned(outputs),
        "chrf_conll14": chrf_conll14(outputs), "cv_edges": cv_edges(outputs),
        "timings": timing_table(times),
        "attacks_summary": attacks_summary(outputs),
        "attacks_benchmarks": " · ".join(
            dict.fromkeys(r["benchmark"] for t in tables(outputs["attacks"])
                          if t and "attack" in t[0] for r in t)),
        # written by docs/generate/make_attribution_auc.py (make-results.sh runs it first)
        "attribution-auc": (RESULTS / "attribution-auc.md").read_text().rstrip("\n"),
        "cmd:attribution-auc": "python docs/generate/make_attribution_auc.py DATA_DIR",
        "runtime": f"{total / 60:.1f} min ({total:.0f} s)",
        "table2_metrics": ", ".join(f"`{m}`" for m in TABLE2),
        "errant": "ERRANT (`errant`) is included" if ERRANT else
                  "ERRANT is not included in this run",
    }

    def replace(match: re.Match) -> str:
        key = match.group(1)
        if key not in fill:
            sys.exit(f"{TEMPLATE.name}: unknown placeholder {{{{{key}}}}}")
        return fill[key]

    page = re.sub(r"\{\{([^{}]+)\}\}", replace, template)
    PAGE.write_text(page)
    print(f"wrote {PAGE.relative_to(ROOT)}" + ("" if fill_only else
          f", docs/results/*.md and docs/img/*.png in {total:.0f} s"), file=sys.stderr)


if __name__ == "__main__":
    main()
