"""``gecmetrics list`` describes the built-in metrics without importing them (issue 23).

It imported every metric module (and so numpy, spaCy's and torch's wrappers)
to read one class attribute, and took 3.2x ``gecmetrics --help``. The class's
``description`` is now read from its module's source (:mod:`gecmetrics.descriptions`);
these tests check that every built-in is read so, equal to the class's own
attribute, and the output equal to the listing made from the classes, with and
without the extras (and without importing an optional tokenizer's package).
Timing: bench/bench_small.py, never here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gecmetrics import builtin_descriptions, extras, registry
from gecmetrics.descriptions import read_description, table_source
from gecmetrics.metric import Metric
from gecmetrics.registry import BUILTIN, list_metrics, metric_class

ALL_EXTRA_MODULES = sorted({m for modules in extras.EXTRAS.values() for m in modules})

# `gecmetrics list` in a fresh interpreter (the console entry), some modules blocked;
# prints the listing, then the gecmetrics.metrics modules and heavy modules it imported.
LIST = """
import sys
for name in {blocked!r}:
    sys.modules[name] = None
sys.argv = ["gecmetrics", "list"]
from gecmetrics.interface.console import main
try:
    main()
except SystemExit:
    pass
import json
loaded = sorted(m for m, module in sys.modules.items() if module is not None and (
    m.startswith("gecmetrics.metrics.") or m.split(".")[0] in (
        "numpy", "spacy", "torch", "errant", "regex", "fugashi", "kiwipiepy", "jieba")))
print(json.dumps(loaded))
"""


def listing_from_classes() -> str:
    """The oracle: what `list` printed before, every class imported for its line."""
    described = {name: metric_class(name).description for name in sorted(BUILTIN)}
    width = max(map(len, described))
    return "".join(f"{name.ljust(width)}  {text}\n" for name, text in described.items())


def run_list(blocked: list[str]) -> tuple[str, list[str]]:
    proc = subprocess.run([sys.executable, "-c", LIST.format(blocked=blocked)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    *lines, loaded = proc.stdout.splitlines(keepends=True)
    return "".join(lines), json.loads(loaded)


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_description_read_from_the_source_equals_the_class_description(name):
    assert read_description(BUILTIN[name]) == metric_class(name).description


def test_the_derived_table_is_the_sources_descriptions():
    # a changed description or tokenizer fails here until the table is regenerated
    path = builtin_descriptions.__file__
    with open(path, encoding="utf-8") as handle:
        assert handle.read() == table_source(BUILTIN), (
            f"{path} is stale: run python docs/generate/make_descriptions.py")
    assert set(builtin_descriptions.DESCRIPTIONS) == set(BUILTIN)


def test_a_tokenizer_registered_at_run_time_is_named_in_the_listing(monkeypatch):
    # the table was derived with the built-in tokenizers: with another one, list reads
    # the sources, whose descriptions name it
    from gecmetrics.tokenizers import registry as tokenizer_registry

    spec = tokenizer_registry.TABLE["word"]
    assert isinstance(spec, str)
    monkeypatch.setitem(tokenizer_registry.TABLE, "my-words", spec)
    listed = list_metrics()
    assert "my-words" in listed["green"] and listed["green"] == read_description(BUILTIN["green"])


def test_list_imports_no_metric_module_and_prints_the_classes_listing():
    text, loaded = run_list([])
    assert loaded == []
    assert text == listing_from_classes()


@pytest.mark.full  # a CLI process with every extra blocked
def test_list_without_any_extra_prints_the_same():
    assert run_list(ALL_EXTRA_MODULES) == (listing_from_classes(), [])


def test_a_registered_class_replacing_a_builtin_is_described_by_its_class(monkeypatch):
    class Mine(metric_class("green")):  # type: ignore[misc, valid-type]
        description = "my own GREEN"

    monkeypatch.setitem(registry._registered, "green", Mine)
    assert list_metrics()["green"] == "my own GREEN"
    assert issubclass(Mine, Metric)
