"""First-party imports inside functions are the exception: each one keeps start-up fast
(a heavy package loaded only when used), breaks an import cycle, or reaches an optional
extra. This file is the one list of them, each with its reason; any other import of a
gecmetrics module belongs at the top of its module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("gecmetrics", "metrics", "meta_eval")
LINKS = ("metrics", "meta_eval", "data")

#: "importer -> imported": why the import waits until a function runs.
LAZY: dict[str, str] = {
    "gecmetrics -> gecmetrics":
        "cycle: gecmetrics imports gecmetrics",
    "gecmetrics -> gecmetrics.corpus":
        "cycle: gecmetrics.corpus imports gecmetrics",
    "gecmetrics -> gecmetrics.meta_eval.api":
        "cycle: gecmetrics.meta_eval.api imports gecmetrics",
    "gecmetrics.interface.commands.attribute -> gecmetrics.m2_format":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.interface.commands.attribute -> gecmetrics.registry":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.interface.commands.attribute -> gecmetrics.scoring":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.attribute -> gecmetrics.workflows.attribution":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.download -> gecmetrics.download":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.interface.commands.list_metrics -> gecmetrics.registry":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.interface.commands.m2_from_text -> gecmetrics.tokenizers":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.interface.commands.m2_to_text -> gecmetrics.m2_format":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.interface.commands.mbr -> gecmetrics.mbr":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.meta_eval -> gecmetrics.interface.html_report":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.meta_eval -> gecmetrics.meta_eval.api":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.meta_eval -> gecmetrics.meta_eval.figures":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.meta_eval -> gecmetrics.meta_eval.render":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.meta_eval -> gecmetrics.meta_eval.saved_run":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.interface.commands.multigec -> gecmetrics.workflows.multigec":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.interface.commands.report -> gecmetrics.interface.html_report":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.report -> gecmetrics.workflows.report_data":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.score -> gecmetrics.interface.score_report":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.score -> gecmetrics.paired":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.commands.score -> gecmetrics.scoring":
        "start-up: loads numpy only when used",
    "gecmetrics.interface.console -> gecmetrics.interface.cli":
        "start-up: loads click only when used",
    "gecmetrics.interface.console -> gecmetrics.interface.commands.common":
        "start-up: loads click only when used",
    "gecmetrics.interface.html_report -> gecmetrics.meta_eval.analyses":
        "start-up: `report` draws no meta-evaluation figure (the analyses import numpy, scipy)",
    "gecmetrics.interface.html_report -> gecmetrics.meta_eval.plot":
        "start-up: only a meta-evaluation page draws the beta sweep",
    "gecmetrics.interface.html_report -> gecmetrics.meta_eval.render":
        "start-up: only a meta-evaluation page renders its tables",
    "gecmetrics.registry -> gecmetrics.builtin_descriptions":
        "start-up: only `list` reads the derived descriptions",
    "gecmetrics.registry -> gecmetrics.descriptions":
        "start-up: the sources are read (and the tokenizer registry imported) only when the "
        "derived table does not apply",
    "gecmetrics.meta_eval -> gecmetrics.meta_eval.api":
        "cycle: gecmetrics.meta_eval.api imports gecmetrics.meta_eval",
    "gecmetrics.meta_eval -> gecmetrics.meta_eval.options":
        "cycle: gecmetrics.meta_eval.options imports gecmetrics.meta_eval",
    "gecmetrics.meta_eval -> gecmetrics.meta_eval.results":
        "cycle: gecmetrics.meta_eval.results imports gecmetrics.meta_eval",
    "gecmetrics.meta_eval.analyses.attacks -> gecmetrics.meta_eval.score_files":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.attacks -> gecmetrics.meta_eval.selection":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.attacks -> gecmetrics.stats.correlation":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.bootstrap -> gecmetrics.meta_eval.correlation_analyses":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.bootstrap -> gecmetrics.stats.intervals":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.meta_eval.pair_scoring":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.meta_eval.plot":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.meta_eval.ratings":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.meta_eval.selection":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.stats.clusters":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.stats.correlation":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.stats.intervals":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.stats.pairwise_accuracy":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.stats.resampling":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.clusters -> gecmetrics.stats.spa":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.compare -> gecmetrics.meta_eval.correlation_analyses":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.compare -> gecmetrics.meta_eval.selection":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.compare -> gecmetrics.stats.significance":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.cv_beta -> gecmetrics.meta_eval.correlation_analyses":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.cv_beta -> gecmetrics.meta_eval.cv_folds":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.cv_beta -> gecmetrics.meta_eval.sweep":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.human_intervals -> gecmetrics.meta_eval.pair_scoring":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.human_intervals -> gecmetrics.meta_eval.plot":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.analyses.human_intervals -> gecmetrics.meta_eval.ratings":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.human_intervals -> gecmetrics.signature":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.analyses.human_intervals -> gecmetrics.stats.intervals":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.human_table -> gecmetrics.signature":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.analyses.pair_stats -> gecmetrics.meta_eval.pair_scoring":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.pair_stats -> gecmetrics.meta_eval.ratings":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.pool -> gecmetrics.meta_eval.plot":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.analyses.rank_pairs -> gecmetrics.meta_eval.plot":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.analyses.rank_pairs -> gecmetrics.meta_eval.selection":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.subsets -> gecmetrics.meta_eval.correlation_analyses":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.subsets -> gecmetrics.meta_eval.plot":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.analyses.subsets -> gecmetrics.meta_eval.ratings":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.subsets -> gecmetrics.meta_eval.selection":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.subsets -> gecmetrics.stats.correlation":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.subsets -> gecmetrics.stats.resampling":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.window -> gecmetrics.meta_eval.correlation_analyses":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.window -> gecmetrics.meta_eval.plot":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.analyses.window -> gecmetrics.meta_eval.ratings":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.window -> gecmetrics.meta_eval.selection":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.analyses.window -> gecmetrics.stats.correlation":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.benchmarks.base -> gecmetrics.download":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.benchmarks.base -> gecmetrics.meta_eval.benchmarks.registry":
        "cycle: the benchmark registry imports its base",
    "gecmetrics.meta_eval.benchmarks.conll14 -> gecmetrics.meta_eval.trueskill":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.options -> gecmetrics.meta_eval.score_files":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.options -> gecmetrics.metric":
        "start-up: loads numpy only when used",
    "gecmetrics.meta_eval.options -> gecmetrics.registry":
        "start-up: keeps it out of every `gecmetrics` command's start-up",
    "gecmetrics.meta_eval.saved_run -> gecmetrics.meta_eval.api":
        "start-up: loads numpy only when used",
    "gecmetrics.metrics.impara -> gecmetrics.neural.batching":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.metrics.impara -> gecmetrics.neural.cache":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.metrics.llm_judge -> gecmetrics.edits.extraction":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.metrics.llm_judge -> gecmetrics.metrics.llm_backends":
        "start-up: loads concurrent.futures only when used",
    "gecmetrics.metrics.llm_judge -> gecmetrics.neural.batching":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.metrics.llm_judge -> gecmetrics.neural.cache":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.metrics.scribendi -> gecmetrics.neural.batching":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.metrics.scribendi -> gecmetrics.neural.cache":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.metrics.some -> gecmetrics.neural.batching":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.metrics.some -> gecmetrics.neural.cache":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.neural.bertscore -> gecmetrics.neural.batching":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.neural.bertscore -> gecmetrics.neural.cache":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.registry -> gecmetrics.metric":
        "start-up: loads numpy only when used",
    "gecmetrics.workflows.attribution -> gecmetrics.edits.extraction":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.workflows.report_data -> gecmetrics.edits.edit_cache":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.workflows.report_data -> gecmetrics.edits.extraction":
        "start-up: loads sqlite3 only when used",
    "gecmetrics.interface.score_report -> gecmetrics.breakdown":
        "start-up: a plain n-gram score (BLEU, GLEU, chrF) does without it",
    "gecmetrics.scoring -> gecmetrics.breakdown":
        "start-up: a plain n-gram score (BLEU, GLEU, chrF) does without it",
    "gecmetrics.scoring -> gecmetrics.edits.metric":
        "start-up: a plain n-gram score (BLEU, GLEU, chrF) does without it",
    "gecmetrics.scoring -> gecmetrics.m2_format":
        "start-up: a plain n-gram score (BLEU, GLEU, chrF) does without it",
    "gecmetrics.scoring -> gecmetrics.paired":
        "start-up: a plain n-gram score (BLEU, GLEU, chrF) does without it",
}


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] != "gecmetrics":
        parts.insert(0, "gecmetrics")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _target(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = (module if is_package else module.rsplit(".", 1)[0]).split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def function_level_imports() -> set[tuple[str, str]]:
    """(importer, imported) for every import of a gecmetrics module inside a function."""
    found = set()
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT).parts
            if parts[0] == "gecmetrics" and len(parts) > 1 and parts[1] in LINKS:
                continue
            module = _module(path)
            for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for node in ast.walk(function):
                    if isinstance(node, ast.ImportFrom):
                        target = _target(module, path.name == "__init__.py", node)
                    elif isinstance(node, ast.Import):
                        target = next((a.name for a in node.names
                                       if a.name.startswith("gecmetrics")), "")
                    else:
                        continue
                    if target.split(".")[0] == "gecmetrics":
                        found.add((module, target))
    return found


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_every_import_inside_a_function_is_listed_with_its_reason():
    found = {f"{importer} -> {target}" for importer, target in function_level_imports()}
    unlisted = sorted(found - set(LAZY))
    assert not unlisted, ("imports inside functions without a reason in LAZY (move them to the "
                          f"top of the module, or list them): {unlisted}")
    assert not sorted(set(LAZY) - found), "LAZY lists imports that are gone"
    assert all(reason.strip() for reason in LAZY.values())
