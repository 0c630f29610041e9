"""Record the authors' annotation summary of gec-evaluation: tests/data/sv_gec_reference.json.

Not a test and not a dependency: run by hand, in a scratch venv, to regenerate the
reference output that tests/test_sv_gec.py checks ``sv_gec.human_table`` against.

The reference is ``annotator/analyze_annotations.py`` of robertostling/gec-evaluation
at commit 5ac81800f2b1a112c135ef4944f2867bbe3c4e9f (the file of the downloaded data),
with its default ``--action summarize``, on Katarina's annotation files (the only
ones the paper uses): once per CEFR level, and once on the three files grouped with
``:`` (the paper's "All" column). It needs numpy and Levenshtein::

    python3 -m venv --system-site-packages /tmp/svgec-ref      # numpy from the system
    /tmp/svgec-ref/bin/pip install Levenshtein                 # 0.27.x
    /tmp/svgec-ref/bin/python tests/reference/sv_gec_reference.py DATA \\
        tests/data/sv_gec_reference.json

DATA is the folder holding ``gec-evaluation/`` (``gecmetrics download sv-gec``).
The script's printed text is stored verbatim, one entry per run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def main(data: str, out: str) -> None:
    root = Path(data) / "gec-evaluation"
    script = root / "annotator" / "analyze_annotations.py"
    files = {level: str(root / "annotations" / f"balanced_{level}" / "katarina.json")
             for level in "ABC"}
    runs = {level: [path] for level, path in files.items()}
    runs["All"] = [files["A"], ":", files["B"], ":", files["C"]]
    outputs = {}
    for level, args in runs.items():
        done = subprocess.run([sys.executable, str(script), *args], check=True,
                              capture_output=True, text=True, cwd=root)
        outputs[level] = done.stdout
    import Levenshtein
    import numpy
    record = {
        "what": "stdout of gec-evaluation's annotator/analyze_annotations.py (commit "
                "5ac8180, --action summarize) on annotations/balanced_{A,B,C}/katarina.json; "
                "see tests/reference/sv_gec_reference.py",
        "command": " ".join([sys.executable, *sys.argv]),
        "versions": {"python": sys.version.split()[0], "numpy": numpy.__version__,
                     "Levenshtein": Levenshtein.__version__},
        "outputs": outputs,
    }
    Path(out).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:3])
