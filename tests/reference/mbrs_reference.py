"""Record mbrs's MBR selections on CoNLL-2014: tests/data/mbrs_reference.json.gz.

Not a test and not a dependency: run by hand, in a scratch venv, to regenerate the
reference output that tests/test_mbr.py checks ``gecmetrics.mbr.select`` against::

    python3 -m venv /work/scratch/mbrs-venv
    /work/scratch/mbrs-venv/bin/pip install mbrs            # 0.1.x, with sacrebleu 2.x
    /work/scratch/mbrs-venv/bin/python tests/reference/mbrs_reference.py DATA \\
        tests/data/mbrs_reference.json.gz

DATA is the shared data folder (``conll14st-test-data/`` and ``official_submissions/``).
Candidates per sentence: the 12 official outputs (alphabetical) and the source, 13 in
all; the pseudo-references are the same 13 (mbrs's usual setting: each candidate is
compared with every candidate, itself included). For chrF and BLEU with mbrs's default
configs (sacrebleu's CHRF and sentence BLEU, effective order), per sentence:

* ``selected``: the index ``DecoderMBR.decode`` returns (its expected utilities are
  float32 tensors on the 0-100 scale: ``expected32``, 8 significant digits);
* ``expected``: the same expectation in float64, the mean (``sum / 13``) of mbrs's own
  per-pair ``metric.score(hyp, ref)`` (a Python float), 0-100, 15 significant digits.
"""

from __future__ import annotations

import gzip
import json
import sys
from importlib.metadata import version
from pathlib import Path

TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]


def read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def main(data: str, out: str) -> None:
    from mbrs.decoders import DecoderMBR
    from mbrs.metrics import MetricBLEU, MetricChrF

    root = Path(data)
    m2 = (root / "conll14st-test-data" / "noalt" / "official-2014.combined.m2").read_text(
        encoding="utf-8")
    sources = [line[2:] for line in m2.split("\n") if line.startswith("S ")]
    outputs = [read(root / "official_submissions" / team) for team in TEAMS]
    assert all(len(o) == len(sources) for o in outputs)
    names = [*TEAMS, "source"]
    record: dict = {
        "what": "mbrs DecoderMBR on CoNLL-2014 (12 outputs + source as candidates and "
                "pseudo-references); see tests/reference/mbrs_reference.py",
        "command": " ".join([sys.executable, *sys.argv]),
        "versions": {"python": sys.version.split()[0], "mbrs": version("mbrs"),
                     "sacrebleu": version("sacrebleu"), "torch": version("torch")},
        "candidates": names, "metrics": {}}
    for name, metric in (("chrf", MetricChrF(MetricChrF.Config())),
                         ("bleu", MetricBLEU(MetricBLEU.Config()))):
        decoder = DecoderMBR(DecoderMBR.Config(), metric)
        selected, expected, expected32 = [], [], []
        for d, src in enumerate(sources):
            cands = [o[d] for o in outputs] + [src]
            result = decoder.decode(cands, cands, source=src, nbest=1)
            selected.append(int(result.idx[0]))
            expected32.append([float(f"{v:.8g}") for v in
                               metric.expected_scores(cands, cands, src).tolist()])
            pairs = [[metric.score(h, r) for r in cands] for h in cands]
            expected.append([float(f"{sum(row) / len(row):.15g}") for row in pairs])
        record["metrics"][name] = {"selected": selected, "expected": expected,
                                   "expected32": expected32}
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        json.dump(record, handle, separators=(",", ":"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
