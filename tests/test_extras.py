"""Optional extras: one check, one message, for every metric that needs one.

Each metric declares its extras (``Metric.extras`` / ``required_extras``); making
the metric checks them, so ``get_metric``, ``ScoreOptions`` and ``gecmetrics
score`` fail with the same one-line ConfigError before any file is read. The
tests make a module unimportable (``sys.modules[name] = None``) and run over the
whole registry, so a new metric is covered without touching this file.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from gecmetrics import extras
from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.registry import BUILTIN, get_metric, list_metrics, metric_class
from gecmetrics.scoring import ScoreOptions

#: Options a metric cannot be made without (llm-judge needs a model name).
REQUIRED_OPTIONS = {"llm-judge": {"model": "some-model"}}

#: Every module of every extra, to make them all unimportable at once.
ALL_MODULES = sorted({m for modules in extras.EXTRAS.values() for m in modules})


def _made(name: str, **options):
    return get_metric(name, **{**REQUIRED_OPTIONS.get(name, {}), **options})


def _installed_but(*blocked: str):
    """``extras._found`` as if every extra were installed but the ``blocked`` modules:
    the check, not this machine's extras, is under test."""
    return lambda module: module not in blocked


def _cases() -> list[tuple[str, str, str]]:
    """(metric, extra, module) for every module of every extra a registered
    metric declares with its default options (class attribute or method)."""
    out = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(extras, "_found", _installed_but())
        for name in sorted(BUILTIN):
            cls = metric_class(name)
            needed = cls.extras
            if "required_extras" in vars(cls):  # depends on options: ask a made one
                needed = _made(name).required_extras()
            for extra in needed:
                out += [(name, extra, module) for module in extras.EXTRAS[extra]]
    return out


def _block(monkeypatch, *modules: str) -> None:
    """These modules missing, every other module of every extra installed."""
    monkeypatch.setattr(extras, "_found", _installed_but(*modules))
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)  # import -> ImportError


def test_every_metric_with_a_model_or_errant_declares_its_extra():
    declared = {name for name, _, _ in _cases()}
    assert {"errant", "cleme", "cleme2", "gotoscorer", "pterrant", "ptm2", "some", "impara",
            "scribendi"} <= declared


@pytest.mark.parametrize(("name", "extra", "module"), _cases())
def test_missing_extra_is_one_line_naming_the_metric_and_install_command(
        monkeypatch, name, extra, module):
    _block(monkeypatch, module)
    expected = (f"metric {name!r} needs the {extra} extra: pip install \".[{extra}]\" in the "
                f"gecmetrics checkout (cannot import {module})")
    with pytest.raises(ConfigError) as err:
        _made(name)
    assert str(err.value) == expected
    # The Python API's scoring entry point: the same error, before any file is read.
    with pytest.raises(ConfigError) as err:
        ScoreOptions(source="/no/such/source.txt", hypotheses=["/no/such/hyp.txt"],
                     metrics=[f"{name}:model=some-model" if name in REQUIRED_OPTIONS else name])
    assert str(err.value) == expected


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_metrics_without_extras_are_made_and_listed_with_every_extra_missing(
        monkeypatch, tmp_path, name):
    _block(monkeypatch, *ALL_MODULES)
    listed = list_metrics()  # `gecmetrics list` imports every metric module
    assert name in listed and not listed[name].startswith("(unavailable")
    if metric_class(name).extras:
        return
    metric = _made(name)
    if metric.required_extras():  # options that need one: the tests above cover it
        return
    if name == "llm-judge":  # its default backend is an HTTP endpoint: made is enough
        return
    corpus = Corpus(["a b c ."], [["a b d ."]], {"s": ["a b d ."]})
    if name == "m2" or name == "imeasure":
        from gecmetrics.m2_format import read_m2

        gold = tmp_path / "gold.m2"
        gold.write_text("S a b c .\nA 2 3|||R:NOUN|||d|||REQUIRED|||-NONE-|||0\n\n")
        corpus = Corpus(["a b c ."], [["a b d ."]], {"s": ["a b d ."]}, m2=read_m2(gold))
    assert math.isfinite(metric.evaluate(corpus)[0].score)  # computed without any extra


def test_llm_judge_extras_follow_its_options(monkeypatch):
    _block(monkeypatch)
    assert _made("llm-judge").required_extras() == ()
    assert _made("llm-judge", form="edits").required_extras() == ("errant",)
    _block(monkeypatch, "errant")
    with pytest.raises(ConfigError, match=r"^metric 'llm-judge' needs the errant extra: "):
        _made("llm-judge", form="edits")


CLI = """
import sys
import gecmetrics.extras
gecmetrics.extras._found = lambda module: module not in {blocked!r}
for name in {blocked!r}:
    sys.modules[name] = None
sys.argv = ["gecmetrics"] + {argv!r}
from gecmetrics.interface.cli import run
run()
"""


def _cli(blocked: list[str], argv: list[str]) -> subprocess.CompletedProcess:
    code = CLI.format(blocked=blocked, argv=argv)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize(("name", "extra", "module"),
                         [("impara", "neural", "torch"), ("scribendi", "neural", "torch"),
                          ("cleme", "errant", "errant"), ("gotoscorer", "errant", "spacy")])
@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_cli_names_the_metric_and_extra_before_reading_files(name, extra, module):
    run = _cli([module], ["score", "-m", "green", "-m", name, "-s", "/no/such/src.txt",
                          "-c", "/no/such/hyp.txt"])
    assert run.returncode == 2, run.stderr
    assert run.stderr == (f"error: metric {name!r} needs the {extra} extra: pip install "
                          f"\".[{extra}]\" in the gecmetrics checkout (cannot import {module})\n")


@pytest.mark.full  # three CLI processes: about 3 s
def test_list_and_help_work_without_any_extra():
    for argv in (["list"], ["--help"], ["score", "--help"]):
        run = _cli(ALL_MODULES, argv)
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr
