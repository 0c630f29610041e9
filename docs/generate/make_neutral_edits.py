"""Regenerate the agreement section of docs/edits-neutral.md.

    python docs/generate/make_neutral_edits.py

On the CoNLL-2014 test set (its gold M2, read from $GECMETRICS_SHARED_DATA,
else ../shared/data beside the repository), each annotator's corrected text
(as ``gecmetrics m2-to-text --annotator K`` writes it) is compared with its
source twice: ERRANT's edits (errant_parallel's, through gecmetrics' ERRANT
extraction) and the language-neutral edits. The span agreement
(gecmetrics.edits.neutral.span_agreement), the ERRANT types where they differ
most and a few differing sentences replace the text between the markers of
the page. tests/test_neutral_edits.py recomputes it on a sample.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gecmetrics.edits import neutral  # noqa: E402
from gecmetrics.edits.extraction import Extractor, pair_edits  # noqa: E402
from gecmetrics.m2_format import read_m2  # noqa: E402

PAGE = ROOT / "docs" / "edits-neutral.md"
BEGIN = "<!-- agreement: begin (docs/generate/make_neutral_edits.py writes this section) -->"
END = "<!-- agreement: end -->"
M2 = Path("conll14st-test-data") / "noalt" / "official-2014.combined.m2"
#: how many differing sentences the page shows
EXAMPLES = 6


def conll_pairs(data: Path, every: int = 1) -> list[tuple[str, str]]:
    """(source, annotator k's text) for every ``every``-th sentence, k = 0, 1."""
    m2 = read_m2(data / M2)
    return [(s.source, s.reference(k)) for s in m2.sentences[::every]
            for k in m2.annotator_ids]


def compare(pairs: list[tuple[str, str]]) -> tuple[dict, list]:
    """The agreement and, per pair, (source, ref, neutral spans, ERRANT edits)."""
    with Extractor() as extractor:
        found = extractor.extract(pairs, [])
    rows = []
    for src, ref in pairs:
        ours = [(e.start, e.end, e.correction)
                for e in neutral.neutral_edits(src.split(), ref.split())]
        rows.append((src, ref, ours, pair_edits(found, src, ref)))
    return neutral.span_agreement([(r[2], r[3]) for r in rows]), rows


def section(result: dict, rows: list) -> str:
    pct = lambda x: f"{100 * x:.1f}"  # noqa: E731
    lines = [f"{len(rows)} pairs (1,312 sentences x 2 annotators): ERRANT finds "
             f"{result['tp'] + result['fn']:,} edits, the neutral extractor "
             f"{result['tp'] + result['fp']:,}; {result['tp']:,} are the same span with the "
             "same correction.", "",
             "| precision | recall | F1 |", "| ---: | ---: | ---: |",
             f"| {pct(result['precision'])} | {pct(result['recall'])} | {pct(result['f1'])} |",
             "", "Precision: the share of neutral edits that are ERRANT's; recall: the share "
             "of ERRANT's edits the neutral extractor finds. By ERRANT type, the types with "
             "the most edits not found (at least 20 edits of the type):", "",
             "| ERRANT type | edits | found | not found |", "| --- | ---: | ---: | ---: |"]
    worst = sorted(((t, f, n) for t, (f, n) in result["by_type"].items() if n >= 20),
                   key=lambda x: (-(x[2] - x[1]), x[0]))[:12]
    lines += [f"| {t} | {n} | {pct(f / n)} % | {n - f} |" for t, f, n in worst]
    lines += ["", "Sentences where they differ (the first few with at most 12 tokens):", ""]
    shown = 0
    for src, ref, ours, theirs in rows:
        mine = set(ours)
        other = {(s, e, c) for s, e, c, _ in theirs}
        if mine == other or len(src.split()) > 12:
            continue
        lines += [f"* `{src}` → `{ref}`",
                  f"  ERRANT: {', '.join(f'{s}-{e} {c!r} {t}' for s, e, c, t in theirs)}; "
                  f"neutral: {', '.join(f'{s}-{e} {c!r}' for s, e, c in ours)}"]
        shown += 1
        if shown == EXAMPLES:
            break
    return "\n".join(lines)


def main() -> None:
    data = Path(os.environ.get("GECMETRICS_SHARED_DATA") or ROOT.parent / "shared" / "data")
    result, rows = compare(conll_pairs(data))
    page = PAGE.read_text(encoding="utf-8")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(f"{head}{BEGIN}\n{section(result, rows)}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
