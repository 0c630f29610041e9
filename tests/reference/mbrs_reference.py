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

* ``selected``: the index ``DecoderMBR.decode`` returns: its ``select`` on the float32
  expectation (``mbrs.functional.expectation``: row means) of mbrs's per-pair scores
  (``expected32``, 0-100, 8 significant digits), as ``Metric.expected_scores`` makes
  them; ``decode`` itself is run on the first ``CHECKED`` sentences and must agree (for
  chrF it starts a process pool per sentence, about a second each);
* ``expected``: the same expectation in float64, the mean (``sum / 13``) of mbrs's own
  per-pair ``metric.score(hyp, ref)`` (a Python float), 0-100, 15 significant digits.
"""

from __future__ import annotations

import gzip
import json
import sys
from importlib.metadata import version
from pathlib import Path

#: sentences whose selection is also made by DecoderMBR.decode itself
CHECKED = 20
TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]


def read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def main(data: str, out: str) -> None:
    import torch
    from mbrs.decoders import DecoderMBR
    from mbrs.functional import expectation
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
            # mbrs's per-pair scores; the float32 tensor and its expectation are what
            # Metric.pairwise_scores and expected_scores build from them, and select is
            # DecoderMBR.decode's own choice (decode itself starts a process pool per
            # sentence for chrF: checked equal on the first CHECKED sentences below)
            pairs = [[metric.score(h, r) for r in cands] for h in cands]
            means32 = expectation(torch.Tensor(pairs))
            chosen = int(decoder.select(cands, means32, nbest=1, source=src).idx[0])
            if d < CHECKED:
                assert int(decoder.decode(cands, cands, source=src, nbest=1).idx[0]) == chosen
            selected.append(chosen)
            expected32.append([float(f"{v:.8g}") for v in means32.tolist()])
            expected.append([float(f"{sum(row) / len(row):.15g}") for row in pairs])
        record["metrics"][name] = {"selected": selected, "expected": expected,
                                   "expected32": expected32}
    with gzip.open(out, "wt", encoding="utf-8") as handle:
        json.dump(record, handle, separators=(",", ":"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
