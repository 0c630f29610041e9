"""Human-rank-pair agreement (``--rank-pairs``): where in the human ranking a metric errs.

The systems of a selection are ranked by the human system scores (1 = best;
equal scores keep the system set's order). For every pair of rank positions
``i < j``, the judged sentence-level comparisons between the system at ``i`` and
the system at ``j`` (every pair of the two in different rank groups of a ranking
item, as :func:`..sentence_agreement.human_pairs` lists them) are counted, and
with them how often the metric's sentence scores prefer the system the humans
preferred in that comparison (``agree``; a metric tie does not agree and is
counted in ``metric_ties``). ``accuracy = agree / n_pairs`` (None when the two
systems were never compared). A metric that agrees well overall may still
confuse the close systems at the top, which a single accuracy hides.

``--rank-pairs-by judgment`` groups the same comparisons by the ranks the
annotator gave the two outputs within their ranking item instead (rank 1 vs 2,
1 vs 3 ... of one sentence's ranking; ``system_a``/``system_b`` are then empty):
the cells of gec-metrics' ``pairwise_analysis`` / ``pairwise_analysis_plot``
(every pair of the system set's outputs of an item with different ranks; a
metric tie counts as a disagreement), which ask whether a metric separates
outputs the annotators found far apart better than close ones. Cells run over
every pair of ranks up to the largest rank given.

``--rank-pairs-plot FILE`` draws one heatmap per benchmark, metric and beta
(rows: the better rank i, columns: the worse rank j).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import render
from gecmetrics.validate import check_plot_file

from ..analysis import Analysis, Context, refuse_sweep
from ..flags import option
from ..human import ranked_pairs
from ..rows import RowIdentity, num
from ..sentence_agreement import human_pairs

if TYPE_CHECKING:
    from ..run_options import RunOptions
    from ..selection import Selection

NAME = "rank_pairs"
#: the largest heatmap (ranks per side) whose cells get their value written in them
ANNOTATE_MAX = 16
#: ``--rank-pairs-by``: human system ranks, or the ranks given within each ranking item
BY = ("system", "judgment")


@dataclass(frozen=True)
class RankPairsSettings:
    rank_pairs: bool = option(
        False, "--rank-pairs", kind="flag",
        help="Human-rank-pair agreement: for every pair of human system ranks i < j, the "
             "share of their judged sentence comparisons in which the metric prefers the "
             "system the humans preferred (a metric tie does not agree).")
    rank_pairs_plot: str | None = option(
        None, "--rank-pairs-plot", kind="file", metavar="FILE",
        requires=("--rank-pairs", lambda s: s.rank_pairs),
        help="Heatmap of --rank-pairs per benchmark and metric (.png, .svg or .pdf).")
    rank_pairs_by: str = option(
        "system", "--rank-pairs-by", kind="choice", choices=BY,
        requires=("--rank-pairs", lambda s: s.rank_pairs),
        help="What the ranks i < j of --rank-pairs are: the systems' places in the human "
             "system ranking (default), or the ranks an annotator gave two outputs within "
             "one ranking item (gec-metrics' pairwise analysis).")


@dataclass(frozen=True)
class RankPairRow(RowIdentity):
    """One cell: the systems at human ranks ``rank_a < rank_b`` (1 = best)."""

    rank_a: int
    rank_b: int
    system_a: str
    system_b: str
    n_pairs: int
    agree: int
    metric_ties: int
    accuracy: float | None
    signature: str = ""
    by: str = "system"  # --rank-pairs-by

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": NAME, **self.identity_json(), "rank_a": self.rank_a,
            "rank_b": self.rank_b, "system_a": self.system_a, "system_b": self.system_b,
            "n_pairs": self.n_pairs, "agree": self.agree, "metric_ties": self.metric_ties,
            "accuracy": num(self.accuracy),
        }
        if self.by != "system":  # the key is new: rows by system ranks stay as they were
            out["by"] = self.by
        if self.signature:
            out["signature"] = self.signature
        return out


def human_order(selection: Selection) -> list[str]:
    """The selection's systems, best human score first (ties: the set's order)."""
    scores = dict(zip(selection.systems, selection.human.tolist(), strict=True))
    return sorted(selection.systems, key=lambda s: -scores[s])


def cells(comparisons: Sequence[tuple[int, str, str]], order: Sequence[str],
          score: Any) -> dict[tuple[int, int], list[int]]:
    """``(rank_a, rank_b) -> [n_pairs, agree, metric_ties]`` for every pair of ranks;
    ``comparisons``: ``(sentence, better, worse)``; ``score(system, sentence)``: the
    metric's sentence score (higher is better)."""
    rank = {system: i + 1 for i, system in enumerate(order)}
    out = {(i, j): [0, 0, 0] for i in range(1, len(order) + 1)
           for j in range(i + 1, len(order) + 1)}
    for sentence, better, worse in comparisons:
        a, b = score(better, sentence), score(worse, sentence)
        cell = out[tuple(sorted((rank[better], rank[worse])))]  # type: ignore[index]
        cell[0] += 1
        cell[1] += int(a > b)
        cell[2] += int(a == b)
    return out


def judgment_cells(comparisons: Sequence[tuple[int, int, int, str, str]],
                   score: Any) -> dict[tuple[int, int], list[int]]:
    """As :func:`cells`, keyed by the ranks given within each ranking item;
    ``comparisons``: ``(sentence, better_rank, worse_rank, better, worse)``."""
    top = max((worse_rank for _, _, worse_rank, _, _ in comparisons), default=0)
    out = {(i, j): [0, 0, 0] for i in range(1, top + 1) for j in range(i + 1, top + 1)}
    for sentence, better_rank, worse_rank, better, worse in comparisons:
        a, b = score(better, sentence), score(worse, sentence)
        cell = out.setdefault((better_rank, worse_rank), [0, 0, 0])
        cell[0] += 1
        cell[1] += int(a > b)
        cell[2] += int(a == b)
    return dict(sorted(out.items()))


def item_comparisons(items: Sequence[Any], systems: Sequence[str]
                     ) -> list[tuple[int, int, int, str, str]]:
    """Every comparison of the items within ``systems``, with the ranks the item gave:
    ``(sentence, better_rank, worse_rank, better, worse)``."""
    keep = set(systems)
    return [(item.sentence, *pair) for item in items
            for pair in ranked_pairs(item.groups, keep)]


def _lookup(matrix: Any, row_of: dict[str, int], columns: dict[int, int]) -> Any:
    """``(system, sentence) -> score`` from a metric's sentence-score matrix."""
    return lambda system, sentence: float(matrix[row_of[system], columns[sentence]])


def run(context: Context, settings: RankPairsSettings) -> list[RankPairRow]:
    import numpy as np

    from ..selection import row_signature

    out = []
    for sel in context.selections:
        bench = sel.benchmark
        if bench.judgments is None:
            raise ConfigError(f"--rank-pairs needs sentence-level human judgments; benchmark "
                              f"{bench.name} has none")
        columns = bench.sentence_columns()
        comparisons = human_pairs(bench.judgments.items, sel.systems)
        outside = sorted({s for s, _, _ in comparisons} - set(columns))
        if outside:
            raise InputError(f"benchmark {bench.name}: {len(outside)} judged sentences (e.g. "
                             f"{outside[0]}) are not in the scored corpus")
        order = human_order(sel)
        by_item = settings.rank_pairs_by == "judgment"
        ranked = item_comparisons(bench.judgments.items, sel.systems) if by_item else []
        for metric in context.metrics:
            if not getattr(metric, "sentence_level", True):  # --scores with system scores
                raise ConfigError(f"--rank-pairs compares sentence scores, but "
                                  f"{metric.display_name} has system scores only")
            stats = metric.statistics(bench.corpus)
            row_of = {name: i for i, name in enumerate(stats.systems)}
            for beta in metric.resolve_betas(context.betas):
                matrix = np.asarray(stats.sentence(beta), dtype=float)
                lookup = _lookup(matrix, row_of, columns)
                counts = (judgment_cells(ranked, lookup) if by_item
                          else cells(comparisons, order, lookup))
                kind = bench.judgments.kind
                extra = {"by": "judgment"} if by_item else {}
                signature = row_signature(metric, sel, "sentence", beta, human=kind,
                                          analysis=NAME, **extra)
                for (i, j), (n, agree, ties) in counts.items():
                    out.append(RankPairRow(
                        bench.name, kind, sel.system_set, bench.corpus_label,
                        metric.display_name, metric.spec, beta, "sentence", i, j,
                        "" if by_item else order[i - 1], "" if by_item else order[j - 1],
                        n, agree, ties, agree / n if n else None, signature,
                        settings.rank_pairs_by))
    return out


def check(settings: RankPairsSettings, options: RunOptions) -> None:
    if settings.rank_pairs:
        refuse_sweep("--rank-pairs", options)
    if settings.rank_pairs_plot is not None:
        check_plot_file(settings.rank_pairs_plot, "--rank-pairs-plot")


def title(settings: RankPairsSettings, rows: Sequence[RankPairRow],
          options: RunOptions) -> str:
    if settings.rank_pairs_by == "judgment":
        return ("Human-rank-pair agreement: outputs an annotator ranked i < j within a "
                "ranking item (1 = best), their comparisons, and the share the metric "
                "orders as the humans")
    return ("Human-rank-pair agreement: systems at human ranks i < j (1 = best), their "
            "judged sentence comparisons, and the share the metric orders as the humans")


def table(rows: Sequence[RankPairRow], fmt: str) -> str:
    headers = ["benchmark", "metric", "spec", "β", "i", "j", "system i", "system j",
               "pairs", "agree", "ties", "agree %"]
    body = [[r.benchmark, r.metric, r.spec, "-" if r.beta is None else f"{r.beta:g}",
             str(r.rank_a), str(r.rank_b), r.system_a or "-", r.system_b or "-",
             str(r.n_pairs),
             str(r.agree), str(r.metric_ties),
             "-" if r.accuracy is None else f"{100 * r.accuracy:.1f}"]
            for r in rows]
    return render(headers, body, fmt, ["left"] * 8 + ["right"] * 4)


def figure(rows: Sequence[RankPairRow], path: str) -> str:
    """One heatmap per (benchmark, metric, beta), written to ``path``; return it."""
    import numpy as np

    from ..plot import check_plot_path, new_figure, save_figure

    path = check_plot_path(os.fspath(path))
    panels: dict[tuple[str, str, float | None], list[RankPairRow]] = {}
    for r in rows:
        panels.setdefault((r.benchmark, r.spec, r.beta), []).append(r)
    size = max(max(r.rank_b for r in cells_) for cells_ in panels.values())
    fig = new_figure(4.2 * len(panels), 4.0)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    image = None
    for ax, ((benchmark, _, beta), cells_) in zip(axes, panels.items(), strict=True):
        grid = np.full((size, size), np.nan)
        names = {}
        for r in cells_:
            grid[r.rank_a - 1, r.rank_b - 1] = np.nan if r.accuracy is None else r.accuracy
            names[r.rank_a], names[r.rank_b] = r.system_a, r.system_b
        image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis")
        if size <= ANNOTATE_MAX:  # each cell's value written in it, as gec-metrics' plot
            for r in cells_:
                if r.accuracy is not None:
                    ax.text(r.rank_b - 1, r.rank_a - 1, f"{r.accuracy:.2f}", ha="center",
                            va="center", fontsize=max(4.0, 9.0 - size / 3),
                            color="black" if r.accuracy > 0.6 else "white")
        ax.set_xlabel("worse rank j", fontsize=7)
        ax.set_ylabel("better rank i", fontsize=7)
        labels = [f"{k} {names.get(k, '')}".rstrip() for k in range(1, size + 1)]
        ax.set_xticks(range(size), labels, rotation=90, fontsize=6)
        ax.set_yticks(range(size), labels, fontsize=6)
        name = cells_[0].metric + ("" if beta is None else f" β={beta:g}")
        if cells_[0].by == "judgment":
            name += ", ranks within items"
        ax.set_title(f"{benchmark}: {name}", fontsize=8)
    if image is not None:
        fig.colorbar(image, ax=list(axes), label="agreement with the humans")
    return save_figure(lambda: fig, path)


RANK_PAIRS = Analysis(NAME, RankPairsSettings, lambda s: s.rank_pairs, run, title, table,
                      check=check, figure=figure, plot="rank_pairs_plot",
    row=RankPairRow)
