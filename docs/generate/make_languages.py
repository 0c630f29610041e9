"""Regenerate the UA-GEC tables of docs/languages.md.

    python docs/generate/make_languages.py

Needs the optional test extra ``ua-gec`` (``pip install ".[ua-gec]"``: the
UA-GEC corpus, CC BY 4.0, read through its package). For each annotation
layer of UA-GEC's test set (166 documents, each corrected by two annotators,
split into sentences and tokenised by the package), it

* scores the source and each annotator's correction against the other
  annotators with every language-neutral metric (GLEU, GREEN word and char,
  chrF, BLEU; M2 against the other annotator's gold edits, made from the
  package's annotations by tests/uagec.py; edit F of the language-neutral
  edits, matched on (start, end, correction) as ERRANT matches edits);
* compares the language-neutral extractor's edits with the gold edits made
  from UA-GEC's own annotations (span agreement P/R/F, overall and by error
  type),

and replaces the text between the markers of docs/languages.md with the
tables. tests/test_uagec.py checks the figures against the page.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import uagec  # noqa: E402

from gecmetrics import Corpus, get_metric  # noqa: E402
from gecmetrics.edits.neutral import neutral_edits  # noqa: E402
from gecmetrics.fscore import prf  # noqa: E402
from gecmetrics.m2_format import read_m2  # noqa: E402

PAGE = ROOT / "docs" / "languages.md"
BEGIN = "<!-- ua-gec: begin (docs/generate/make_languages.py writes this part) -->"
END = "<!-- ua-gec: end -->"

#: The text metrics, as -m specifications, and their column names.
TEXT_METRICS = (("gleu", "GLEU"), ("green", "GREEN word"), ("green:tokenize=char", "GREEN char"),
                ("chrf", "chrF"), ("bleu", "BLEU"))

#: Error types with fewer gold edits than this are pooled under their family
#: (``G/``, ``F/``) in the by-type table.
MIN_TYPE_EDITS = 50


def pct(x: float) -> str:
    return f"{100 * x:.2f}"


def text_scores(sources: list[str], refs: list[list[str]], hyp: list[str]) -> list[float]:
    corpus = Corpus(sources, refs, {"h": hyp})
    out = []
    for spec, _ in TEXT_METRICS:
        name, _, opts = spec.partition(":")
        kwargs = dict(o.split("=", 1) for o in opts.split(",")) if opts else {}
        metric = get_metric(name, **kwargs)
        (result,) = [r for r in metric.evaluate(corpus, level="corpus")]
        out.append(result.score)
    return out


def m2_score(sources: list[str], gold_m2: str, hyp: list[str]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gold.m2"
        path.write_text(gold_m2, encoding="utf-8")
        gold = read_m2(path)
    corpus = Corpus(gold.sources, gold.references(), {"h": hyp}, m2=gold)
    (result,) = list(get_metric("m2").evaluate(corpus, level="corpus"))
    return result.score


def edit_set(src: Sequence[str], other: Sequence[str]) -> set[tuple[int, int, str]]:
    return {(e.start, e.end, e.corrections[0]) for e in neutral_edits(src, other)}


def neutral_f(sources: list[str], refs: list[list[str]], hyp: list[str]) -> tuple[float, ...]:
    """Edit P/R/F0.5 of the language-neutral edits, ERRANT's way: per sentence the
    reference whose counts give the best running F (ties: more TP, fewer FP, FN)."""
    tp = fp = fn = 0
    for d, src in enumerate(sources):
        s = src.split()
        h = edit_set(s, hyp[d].split())
        best = None
        for ref in refs:
            r = edit_set(s, ref[d].split())
            t = len(h & r)
            counts = (t, len(h) - t, len(r) - t)
            f = prf(tp + counts[0], fp + counts[1], fn + counts[2], 0.5)[2]
            key = (round(f, 4), counts[0], -counts[1], -counts[2])
            if best is None or key > best[0]:
                best = (key, counts)
        assert best is not None
        tp, fp, fn = tp + best[1][0], fp + best[1][1], fn + best[1][2]
    return (*prf(tp, fp, fn, 0.5), tp, fp, fn)


def metric_rows(ts: uagec.TestSet) -> list[str]:
    sources = ts.sources()
    a1, a2 = ts.annotators
    official = {a: ts.targets(a) for a in ts.annotators}
    applied = {a: [" ".join(uagec.apply_m2(s.split(), e))
                   for s, e in zip(sources, ts.edits(a), strict=True)]
               for a in ts.annotators}
    setups = [("source", sources, sources, list(ts.annotators)),
              (f"annotator {a1}", official[a1], applied[a1], [a2]),
              (f"annotator {a2}", official[a2], applied[a2], [a1])]
    rows = []
    for label, hyp, hyp_applied, against in setups:
        scores = text_scores(sources, [official[a] for a in against], hyp)
        m2 = m2_score(sources, uagec.m2_text(ts, against), hyp_applied)
        ne = neutral_f(sources, [applied[a] for a in against], hyp_applied)
        refs = " and ".join(f"annotator {a}" for a in against)
        cells = [label, refs, *(pct(x) for x in scores), pct(m2),
                 f"{pct(ne[0])} / {pct(ne[1])} / {pct(ne[2])}"]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def agreement(ts: uagec.TestSet) -> tuple[list[str], list[str]]:
    """Neutral edits vs the gold edits: overall rows and per-type rows."""
    overall = []
    by_type: Counter[str] = Counter()
    found: Counter[str] = Counter()
    found_span: Counter[str] = Counter()
    totals = Counter[str]()
    misses: Counter[str] = Counter()
    for a in ts.annotators:
        counts = Counter[str]()
        for src, _tgt, gold in uagec.sentence_pairs(ts, a):
            target = uagec.apply_m2(src, gold)
            neutral = edit_set(src, target)
            gold_set = {(s, e, c) for s, e, c, _ in gold}
            gold_spans = {(s, e) for s, e, _, _ in gold}
            counts["neutral"] += len(neutral)
            counts["gold"] += len(gold_set)
            counts["same"] += len(neutral & gold_set)
            counts["same span"] += len({(s, e) for s, e, _ in neutral} & gold_spans)
            for s, e, c, t in gold:
                if (s, e, c) not in neutral:
                    misses[miss_kind(s, e, neutral)] += 1
                family = t
                by_type[family] += 1
                found[family] += (s, e, c) in neutral
                found_span[family] += any((s, e) == (x, y) for x, y, _ in neutral)
        totals.update(counts)
        overall.append(agreement_row(f"annotator {a}", counts))
    overall.append(agreement_row("both", totals))
    pooled: Counter[str] = Counter()
    pooled_found: Counter[str] = Counter()
    pooled_span: Counter[str] = Counter()
    for t, n in by_type.items():
        key = t if n >= MIN_TYPE_EDITS else (t.split("/")[0] + "/* (pooled)" if "/" in t
                                              else "others (pooled)")
        pooled[key] += n
        pooled_found[key] += found[t]
        pooled_span[key] += found_span[t]
    type_rows = [f"| {t} | {pooled[t]} | {pct(pooled_found[t] / pooled[t])} | "
                 f"{pct(pooled_span[t] / pooled[t])} |"
                 for t in sorted(pooled, key=lambda k: (-pooled[k], k))]
    miss_rows = [f"| {kind} | {misses[kind]} |" for kind in MISS_KINDS]
    return overall, type_rows, miss_rows


#: How the neutral edits cover a gold edit they do not equal (:func:`miss_kind`).
MISS_KINDS = ("split into several neutral edits", "inside a larger neutral edit",
              "one neutral edit with another span", "no neutral edit there")


def miss_kind(s: int, e: int, neutral: set[tuple[int, int, str]]) -> str:
    inside = [x for x in neutral if x[0] >= s and x[1] <= e and (x[0] < e or x[0] == s == e)]
    if len(inside) >= 2:
        return MISS_KINDS[0]
    if any(x[0] <= s and x[1] >= e and (x[0], x[1]) != (s, e) for x in neutral):
        return MISS_KINDS[1]
    return MISS_KINDS[2] if inside else MISS_KINDS[3]


def agreement_row(label: str, c: Counter[str]) -> str:
    p, r, f = prf(c["same"], c["neutral"] - c["same"], c["gold"] - c["same"], 1.0)
    sp, sr, sf = prf(c["same span"], c["neutral"] - c["same span"], c["gold"] - c["same span"],
                     1.0)
    return (f"| {label} | {c['gold']} | {c['neutral']} | {pct(p)} | {pct(r)} | {pct(f)} | "
            f"{pct(sf)} |")


def checks(ts: uagec.TestSet) -> str:
    sentences = docs = doc_ok = same = 0
    for d in ts.documents:
        for a in d.targets:
            applied = [uagec.apply_m2(s, e) for s, e in zip(d.source, d.edits[a], strict=True)]
            sentences += len(applied)
            same += sum(x == y for x, y in zip(applied, d.targets[a], strict=True))
            docs += 1
            doc_ok += sum(applied, []) == sum(d.targets[a], [])
    merged = sum(d.merged for d in ts.documents)
    crossing = sum(d.crossing for d in ts.documents)
    return (f"{len(ts.documents)} documents, {len(ts.sources())} sentences, "
            f"{sum(len(e) for a in ts.annotators for e in ts.edits(a))} gold edits "
            f"({merged} annotations merged into another one's edit, {crossing} edits over a "
            f"sentence boundary split); the gold edits give "
            f"the package's own tokenised target sentence exactly in {same} of {sentences} "
            f"(sentence, annotator) pairs ({pct(same / sentences)}%), and the whole "
            f"document's tokens in {doc_ok} of {docs} (document, annotator) pairs")


def section(layer: str) -> str:
    started = time.perf_counter()
    ts = uagec.load(layer)
    rows = metric_rows(ts)
    overall, type_rows, miss_rows = agreement(ts)
    seconds = time.perf_counter() - started
    print(f"{layer}: {seconds:.0f} s", file=sys.stderr)
    return "\n".join([
        f"#### Layer `{layer}`",
        "",
        checks(ts) + ".",
        "",
        "| hypothesis | references | GLEU | GREEN word | GREEN char | chrF | BLEU | M2 F0.5 "
        "| neutral edits P / R / F0.5 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        "The language-neutral extractor's edits against the gold edits (exact: same "
        "span and correction; span: same span):",
        "",
        "| annotator | gold edits | neutral edits | P | R | F1 | span F1 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *overall,
        "",
        f"Recall by UA-GEC error type, both annotators (types with fewer than "
        f"{MIN_TYPE_EDITS} edits pooled):",
        "",
        "| error type | gold edits | found exactly | same span |",
        "| --- | --- | --- | --- |",
        *type_rows,
        "",
        "The gold edits the extractor does not find exactly, by how its edits cover "
        "them (both annotators):",
        "",
        "| gold edit | count |",
        "| --- | --- |",
        *miss_rows,
        "",
    ])


def main() -> None:
    import ua_gec

    text = "\n".join([f"UA-GEC {ua_gec.__version__} (the `ua-gec` package), test set.", "",
                      *(section(layer) for layer in uagec.LAYERS)])
    page = PAGE.read_text(encoding="utf-8")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(f"{head}{BEGIN}\n{text}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
