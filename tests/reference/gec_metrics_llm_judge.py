"""Record gec-metrics' LLM-judge logic on CoNLL-2014: tests/gec_metrics_llm_judge_reference.json.

Not a test and not a dependency: run by hand to regenerate the reference that
tests/test_llm_judge_reference.py checks. gec-metrics 0.1.1's
``metrics/llm_kobayashi24.py`` (class ``LLMKobayashi24``) is loaded with its
client stubbed: instead of an LLM, ``call_client`` answers the same rule as the
tests' stub server (tests/llm_stub.py: ``1 + len(target) % 5`` per target),
under gec-metrics' own field names ``target_score{i}``. Everything else is
gec-metrics' code: choosing at most five distinct hypotheses per sentence (the
most frequent ones when there are more), their order, the template filling,
the answer parsing and the pairwise table (``score_pairwise``). Its heavy
imports (openai, pydantic, outlines, gecommon, transformers) are stubbed, as
none of them is used on this path.

Run::

    python -m venv /tmp/ref_llm
    /tmp/ref_llm/bin/pip install --no-deps gec-metrics==0.1.1
    /tmp/ref_llm/bin/pip install numpy trueskill
    /tmp/ref_llm/bin/python tests/reference/gec_metrics_llm_judge.py \\
        ../shared/data tests/gec_metrics_llm_judge_reference.json
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
import types
from pathlib import Path

TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]
SENTENCES = 60


def rule(target: str) -> int:  # the same rule as tests/llm_stub.py
    return 1 + len(target) % 5


def _stub_modules() -> None:
    class _Anything:
        def __init__(self, *args, **kwargs):
            pass

    for name, attrs in {"openai": ["OpenAI"], "pydantic": ["BaseModel"], "outlines": [],
                        "gecommon": ["CachedERRANT", "apply_edits"],
                        "transformers": ["BitsAndBytesConfig", "AutoTokenizer"]}.items():
        module = types.ModuleType(name)
        for attr in attrs:
            setattr(module, attr, _Anything)
        sys.modules[name] = module


def _load(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main(data: str, out: str) -> None:
    _stub_modules()
    site = Path(importlib.util.find_spec("gec_metrics").submodule_search_locations[0])
    package = types.ModuleType("gec_metrics.metrics")
    package.__path__ = [str(site / "metrics")]
    sys.modules["gec_metrics.metrics"] = package
    base = _load(site / "metrics" / "base.py", "gec_metrics.metrics.base")
    package.MetricBaseForReferenceFree = base.MetricBaseForReferenceFree
    llm = _load(site / "metrics" / "llm_kobayashi24.py", "gec_metrics.metrics.llm_kobayashi24")

    asked: list[list[str]] = []

    class Stubbed(llm.LLMKobayashi24):
        def load_client(self):
            return None

        def call_client(self, instruction, output_format):
            block = instruction.split("# targets\n", 1)[1].split("\n\n# output format", 1)[0]
            targets = block.split("\n")
            asked.append(targets)
            scores = {f"target_score{i}": rule(t) for i, t in enumerate(targets, 1)}
            return {"choices": [{"message": {"content": json.dumps(scores)}}]}

    root = Path(data)
    m2 = root / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    sources = [line[2:].rstrip("\n") for line in m2.read_text(encoding="utf-8").splitlines()
               if line.startswith("S ")][:SENTENCES]
    systems = TEAMS + ["INPUT"]
    hyps = [(root / "official_submissions" / t).read_text(encoding="utf-8").split("\n")
            [:SENTENCES] for t in TEAMS] + [sources]
    with tempfile.TemporaryDirectory() as tmp:
        metric = Stubbed(Stubbed.Config(model="stub", cache=str(Path(tmp) / "c.jsonl")))
        table = metric.score_pairwise(sources, hyps)
    result = {
        "produced_by": "tests/reference/gec_metrics_llm_judge.py with gec-metrics 0.1.1 "
                       "(PyPI), LLMKobayashi24.score_pairwise, client stubbed by the rule "
                       "1 + len(target) % 5",
        "systems": systems,
        "sentences": SENTENCES,
        "targets": asked,
        "pairwise": table,
    }
    Path(out).write_text(json.dumps(result, indent=0) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
