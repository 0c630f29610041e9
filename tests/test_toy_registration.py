"""A new tokenizer and a new metric are each one module plus one registry line.

The issue ("Ship it"): adding a tokenizer stopped the CLI at import until a
``Literal`` was edited, BLEU refused it (a list of its own), and the lists in
GREEN's, GLEU's and the registry's descriptions went stale; adding a metric
needed its description copied into the registry. Here a toy tokenizer ``lower``
(one module, one ``register_tokenizer`` line) and a toy metric ``toy`` (one
module, one ``BUILTIN`` line) run end to end, through the CLI and the Python API;
and a tokenizer registered twice is a one-line error when the registry is imported.
"""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics import registry as metric_registry
from gecmetrics import tokenizers
from gecmetrics.errors import ConfigError
from gecmetrics.registry import get_metric
from gecmetrics.tokenizers import lookup, registry

TOY_TOKENIZER = '''
"""``lower``: lowercased whitespace words (a toy)."""
from gecmetrics.tokenizers import TokenizerSpec


def lower_tokens(line: str) -> list[str]:
    return line.lower().split()


TOKENIZER = TokenizerSpec("lowercased whitespace words", lower_tokens)
'''

TOY_METRIC = '''
"""``toy``: GREEN on lowercased words (a toy)."""
from dataclasses import dataclass
from typing import ClassVar

from gecmetrics.metrics.green import Green, GreenConfig
from gecmetrics.tokenizers import Tokenize, tokenize_option


@dataclass(frozen=True)
class ToyConfig(GreenConfig):
    tokenize: Tokenize = "lower"


class Toy(Green):
    name: ClassVar[str] = "toy"
    description: ClassVar[str] = "toy GREEN; " + tokenize_option(ToyConfig.tokenize)
    Config = ToyConfig
'''

SOURCES = ["The cat sat on the mat .", "A dog barks ."]
REFERENCES = ["The cat sat on the mat .", "A dog barks loudly ."]
HYPOTHESES = ["THE CAT sat on THE mat .", "a dog BARKS ."]


@pytest.fixture
def toys(tmp_path, monkeypatch):
    """The toy modules on the path, their two registry lines; all undone afterwards."""
    (tmp_path / "toy_lower.py").write_text(TOY_TOKENIZER, encoding="utf-8")
    (tmp_path / "toy_metric.py").write_text(TOY_METRIC, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    table, specs = dict(registry.TABLE), dict(lookup._SPECS)

    tokenizers.register_tokenizer("lower", "toy_lower")  # the tokenizer's one line
    monkeypatch.setitem(metric_registry.BUILTIN, "toy", "toy_metric:Toy")  # the metric's
    yield tmp_path
    registry.TABLE.clear()
    registry.TABLE.update(table)
    lookup._SPECS.clear()
    lookup._SPECS.update(specs)
    for module in ("toy_lower", "toy_metric"):
        sys.modules.pop(module, None)


def files(tmp_path: Path) -> list[str]:
    paths = []
    for name, lines in (("src", SOURCES), ("ref", REFERENCES), ("hyp", HYPOTHESES)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(tmp_path / name))
    return paths


def test_list_shows_the_toy_metric_without_importing_it(toys):
    from gecmetrics.interface.cli import main

    out = CliRunner().invoke(main, ["list"])
    assert out.exit_code == 0, out.output
    lines = {line.split()[0]: line for line in out.output.splitlines()}
    assert lines["toy"].split(None, 1)[1] == "toy GREEN; tokenize=lower|word|char|13a|intl|ja|" \
                                             "ko|zh|zh-char"
    assert "toy_metric" not in sys.modules  # described from its source
    assert "|zh-char|lower (docs/tokenizers.md)" in lines["green"]
    assert "|zh-char|lower (docs/tokenizers.md)" in lines["bleu"]


def test_the_toy_tokenizer_and_metric_run_through_the_api(toys):
    lowered = ([s.lower() for s in SOURCES], [[r.lower() for r in REFERENCES]],
               {"h": [h.lower() for h in HYPOTHESES]})
    given = (SOURCES, [REFERENCES], {"h": HYPOTHESES})
    for name in ("green", "gleu", "bleu"):
        word = "none" if name == "bleu" else "word"
        made = get_metric(name, tokenize="lower")
        assert made.required_extras() == ()
        assert "tokenize:lower" in made.signature()
        assert [r.score for r in made.score(*given)] == \
            [r.score for r in get_metric(name, tokenize=word).score(*lowered)], name
    toy = get_metric("toy")
    assert toy.description == metric_registry.list_metrics()["toy"]
    assert [r.score for r in toy.score(*given)] == \
        [r.score for r in get_metric("green").score(*lowered)]
    assert [r.score for r in toy.score(*given)] != \
        [r.score for r in get_metric("green").score(*given)]


def test_the_toy_tokenizer_and_metric_run_through_the_cli(toys):
    from gecmetrics.interface.cli import main

    src, ref, hyp = files(toys)
    out = CliRunner().invoke(main, [
        "score", "-m", "toy", "-m", "green:tokenize=lower", "-m", "gleu:tokenize=lower",
        "-m", "bleu:tokenize=lower", "-s", src, "-r", ref, "-c", hyp])
    assert out.exit_code == 0, out.output
    for shown in ("lowerGREEN", "lowerGLEU", "BLEU"):
        assert shown in out.output
    bad = CliRunner().invoke(main, ["score", "-m", "bleu:tokenize=upper", "-s", src, "-r", ref,
                                    "-c", hyp])
    assert bad.exit_code != 0 and "13a, none, intl, char, ja, ko, zh, zh-char, lower" \
        in bad.output


def test_a_tokenizer_registered_twice_is_one_line():
    with pytest.raises(ConfigError) as err:
        tokenizers.register_tokenizer("word", ".word")
    assert "\n" not in str(err.value) and "'word' is registered twice" in str(err.value)
    assert registry.TABLE["word"] == ".word"


def test_a_registry_with_a_line_twice_fails_when_imported():
    """The registry's own source with one line repeated: a one-line error at its import."""
    path = Path(registry.__file__)
    source = path.read_text(encoding="utf-8") + textwrap.dedent('''
        register_tokenizer("zh", ".zh")
    ''')
    copy = types.ModuleType("gecmetrics.tokenizers.registry_copy")
    copy.__package__ = "gecmetrics.tokenizers"
    with pytest.raises(ConfigError) as err:
        exec(compile(source, str(path), "exec"), copy.__dict__)  # noqa: S102
    assert str(err.value) == ("tokenizer 'zh' is registered twice ('.zh' and '.zh'); keep one "
                              "of them (gecmetrics/tokenizers/registry.py)")


def test_no_builtin_metric_is_listed_twice():
    """BUILTIN is a dict literal: a second line with the same name would silently
    replace the first, so its source is read for repeated keys."""
    import ast

    import gecmetrics.registry as reg

    tree = ast.parse(Path(reg.__file__).read_text(encoding="utf-8"))
    table = next(node.value for node in tree.body if isinstance(node, ast.AnnAssign)
                 and getattr(node.target, "id", "") == "BUILTIN")
    names = [key.value for key in table.keys if isinstance(key, ast.Constant)]
    assert len(names) == len(set(names)) == len(reg.BUILTIN)
