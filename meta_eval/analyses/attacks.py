"""Robustness to adversarial outputs (``--attacks``): would a metric rank a fake above real systems?

Goto, Sakai and Watanabe ("Reliability Crisis of Reference-free Metrics for
Grammatical Error Correction", EMNLP 2025 Findings) published four outputs of
the 1,312 CoNLL-2014 test sentences, each built to fool one reference-free
metric (SOME, Scribendi, IMPARA, an LLM sentence judge) rather than to correct
anything. This analysis scores each of them as one more "system" of every
benchmark made of CoNLL-2014 sentences (``conll14``; ``seeda-s``/``seeda-e``,
whose ``subset`` corpus takes the attack line of each judged sentence's
CoNLL-2014 position, :class:`~..benchmarks.base.SourceSet`), with the
benchmark's references, and compares it with the n systems the humans ranked
(the selection's system set), per metric, level and beta. With ``s_1 .. s_n``
the metric's scores of those systems and ``a`` the attack's:

* ``rank = 1 + #{i: s_i > a}``: the attack's place among the n + 1 (1 = best);
* ``beats = #{i: s_i < a}``: the human-ranked systems the metric puts below the
  attack (a tie is in ``ties``, not in ``beats``); ``beats_best``: whether the
  system the humans ranked first is among them;
* ``spearman``/``kendall``: the correlation of the n systems with the humans
  (the run's own); ``spearman_admitted``/``kendall_admitted``: the same with the
  attack admitted as an (n+1)-th system that the humans rank below every real
  system (any human score below the lowest gives the same ranks). A metric that
  ranks the attack last keeps or raises its correlation; one that ranks it high
  loses. Pearson is not reported: it would depend on the made-up human score.

Each attack is admitted alone. A metric whose scores depend on the systems scored
together (its ``extra_signature`` changes with them: GoToScorer, whose edit
weights come from the systems) scores each attack in one corpus with the
benchmark's systems, and ``rank``, ``beats`` and the admitted correlations use
the real systems' scores from that pool; ``spearman``/``kendall`` stay the run's.
For every other metric a system's score does not depend on the others, so the
attacks are scored alone (the tests check that this gives the same score).

The attack outputs come from the data folder (``gecmetrics download attacks``);
a file without one line per CoNLL-2014 sentence is refused before anything is
scored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, InputError
from gecmetrics.formatting import plural, render
from gecmetrics.readers import read_lines

from ..analysis import Analysis, Context, refuse_aggregation, refuse_sweep
from ..benchmarks.base import data_root, description, require_files
from ..flags import option
from ..rows import RowIdentity, num

if TYPE_CHECKING:
    from gecmetrics.corpus import Corpus

    from ..benchmarks.base import Benchmark
    from ..run_options import RunOptions
    from ..selection import Selection

NAME = "attacks"
#: the data description (``data/attacks.json``) of the adversarial outputs
DESCRIPTION = "attacks"


@dataclass(frozen=True)
class AttacksSettings:
    attacks: bool = option(
        False, "--attacks", kind="flag",
        help="Robustness: score the four adversarial outputs of the CoNLL-2014 test set "
             "(Goto et al. 2025; `gecmetrics download attacks`) as extra systems and report "
             "where each ranks among the human-ranked systems, and each correlation with "
             "the attack admitted as the humans' last system (conll14, seeda-s, seeda-e).")


@dataclass(frozen=True)
class AttackRow(RowIdentity):
    """One attack under one metric configuration, against the ``n_systems`` real ones."""

    attack: str
    score: float
    rank: int
    n_systems: int
    beats: int
    ties: int
    beats_best: bool
    spearman: float
    kendall: float
    spearman_admitted: float
    kendall_admitted: float
    signature: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "analysis": NAME, **self.identity_json(), "attack": self.attack,
            "score": num(self.score), "rank": self.rank, "n_systems": self.n_systems,
            "beats": self.beats, "ties": self.ties, "beats_best": self.beats_best,
            "spearman": num(self.spearman), "kendall": num(self.kendall),
            "spearman_admitted": num(self.spearman_admitted),
            "kendall_admitted": num(self.kendall_admitted),
        }
        if self.signature:
            out["signature"] = self.signature
        return out


@dataclass(frozen=True)
class Placement:
    """Where a score ``a`` falls among real systems' scores, and the rank
    correlations with humans without and with it admitted as the humans' last."""

    rank: int
    beats: int
    ties: int
    beats_best: bool
    spearman: float
    kendall: float
    spearman_admitted: float
    kendall_admitted: float


def place(scores: Sequence[float], human: Sequence[float], attack: float,
          baseline: Sequence[float] | None = None) -> Placement:
    """The definitions of the module docstring for one attack score (``scores`` and
    ``human``: the real systems, in the same order; higher is better for both).
    ``baseline``: the real systems' scores without the attack, when admitting it
    changes them (default ``scores``): ``spearman``/``kendall`` are theirs."""
    import numpy as np

    from gecmetrics.stats.correlation import correlate

    s = np.asarray(scores, dtype=float)
    h = np.asarray(human, dtype=float)
    best = int(np.argmax(h))  # the first of equal human scores, as the set's order
    before = correlate(s if baseline is None else np.asarray(baseline, dtype=float), h)
    after = correlate(np.append(s, attack), np.append(h, h.min() - 1.0))
    return Placement(
        rank=1 + int((s > attack).sum()), beats=int((s < attack).sum()),
        ties=int((s == attack).sum()), beats_best=bool(s[best] < attack),
        spearman=before.spearman, kendall=before.kendall,
        spearman_admitted=after.spearman, kendall_admitted=after.kendall)


def attack_files(root: Path) -> dict[str, Path]:
    """Attack name -> its file in the data folder ``root`` (missing files: one line
    naming ``gecmetrics download attacks``)."""
    desc = description(DESCRIPTION)
    require_files(root, desc, DESCRIPTION)
    return {name: root / rel for name, rel in desc["systems"].items()}


@lru_cache(maxsize=2)
def attack_lines(root: Path) -> dict[str, tuple[str, ...]]:
    """Attack name -> its lines, one per CoNLL-2014 test sentence; a file with another
    number of lines is refused with the file and both counts."""
    expected = int(description(DESCRIPTION)["sentences"])
    out = {}
    for name, path in attack_files(root).items():
        lines = read_lines(path, "attack output")
        if len(lines) != expected:
            raise InputError(
                f"{path}: {plural(len(lines), 'line')}, but the CoNLL-2014 test set has "
                f"{expected} sentences (one attack output a line); run `gecmetrics download "
                "attacks` to fetch the published file again")
        out[name] = tuple(lines)
    return out


def _root(options: RunOptions) -> Path:
    return data_root(options.data_dir).resolve()


def check(settings: AttacksSettings, options: RunOptions) -> None:
    """Refuse what cannot be answered, and read the attack files, before any scoring."""
    from ..score_files import ScoresMetric

    if not settings.attacks:
        return
    refuse_sweep("--attacks", options)
    refuse_aggregation("--attacks", options)
    if options.mode == "sentence":
        raise ConfigError("--attacks ranks systems; it cannot be combined with "
                          "--sentence-level (the attacks have no sentence judgments)")
    given = [m.display_name for m in options.metric_objects if isinstance(m, ScoresMetric)]
    if given:
        raise ConfigError(f"--attacks scores the attack outputs, which {given[0]} (scores "
                          "from --scores) cannot; drop --scores or --attacks")
    attack_lines(_root(options))


def on_load(settings: AttacksSettings, selection: Selection) -> None:
    """Refuse a benchmark that is not made of CoNLL-2014 test sentences."""
    if not settings.attacks:
        return
    bench = selection.benchmark
    wanted = description(DESCRIPTION)["source_set"]
    if bench.source_set is None or bench.source_set.name != wanted:
        raise ConfigError(f"--attacks needs a benchmark on the CoNLL-2014 test set (conll14, "
                          f"seeda-s, seeda-e); {bench.name} is not one")


def attack_corpus(bench: Benchmark, lines: Mapping[str, Sequence[str]]) -> Corpus:
    """The benchmark's sources, references and M2 edits with the attacks as its systems,
    each attack line taken at its sentence's position in the test set."""
    assert bench.source_set is not None  # on_load refused the others
    positions = list(bench.source_set.positions)
    corpus = bench.corpus
    hypotheses = {name: [attack[p] for p in positions] for name, attack in lines.items()}
    return Corpus(corpus.sources, corpus.references, hypotheses, m2=corpus.m2)


def corpus_key(bench: Benchmark) -> tuple[Any, ...]:
    """What an attack corpus is made of: the positions, sources and references, and
    the M2 file the gold edits come from (None: text references only)."""
    assert bench.source_set is not None
    corpus = bench.corpus
    m2 = None if corpus.m2 is None else str(getattr(corpus.m2, "path", id(corpus.m2)))
    return (tuple(bench.source_set.positions), corpus.sources, corpus.references, m2)


def level_scores(stats: Any, beta: float | None, level: str) -> Any:
    """Every system's score at ``level`` (``corpus`` or ``mean``) from statistics."""
    import numpy as np

    return np.asarray(stats.corpus_scores(beta) if level == "corpus" else stats.mean(beta),
                      dtype=float)


def run(context: Context, settings: AttacksSettings) -> list[AttackRow]:
    from ..selection import row_signature, system_scores

    lines = attack_lines(_root(context.options))
    # One attack corpus per distinct corpus: seeda-s and seeda-e share theirs, and conll14
    # and SEEDA's ``all`` hold the same sentences and references (scored once: M2 takes
    # minutes on outputs that rewrite whole sentences).
    corpora: dict[tuple[Any, ...], Corpus] = {}
    pools: dict[tuple[int, str], Corpus] = {}  # by the benchmark's corpus and the attack
    out = []
    for sel in context.selections:
        bench = sel.benchmark
        key = corpus_key(bench)
        if key not in corpora:
            corpora[key] = attack_corpus(bench, lines)
        fakes = corpora[key]
        human = sel.human.tolist()
        for metric in context.metrics:
            stats = metric.statistics(fakes)
            # A metric whose scores depend on the systems scored together (its signature
            # says so: GoToScorer's weights) scores each attack with the corpus's systems.
            pooled = metric.extra_signature(fakes) != metric.extra_signature(bench.corpus)
            for level in context.options.levels:
                for beta in metric.resolve_betas(context.betas):
                    run_real = system_scores(metric, sel, beta, level).tolist()
                    fake = level_scores(stats, beta, level)
                    signature = row_signature(metric, sel, level, beta, analysis=NAME)
                    for k, attack in enumerate(stats.systems):
                        real, score = run_real, float(fake[k])
                        if pooled:
                            pool = pools.get((id(bench.corpus), attack))
                            if pool is None:
                                pool = pools[(id(bench.corpus), attack)] = Corpus(
                                    fakes.sources, fakes.references,
                                    {**bench.corpus.hypotheses,
                                     attack: fakes.hypotheses[attack]}, m2=fakes.m2)
                            both = metric.statistics(pool)
                            vector = level_scores(both, beta, level)
                            row = {name: i for i, name in enumerate(both.systems)}
                            real = [float(vector[row[s]]) for s in sel.systems]
                            score = float(vector[row[attack]])
                        p = place(real, human, score, baseline=run_real)
                        out.append(AttackRow(
                            bench.name, sel.human_kind, sel.system_set, bench.corpus_label,
                            metric.display_name, metric.spec, beta, level, attack,
                            score, p.rank, len(real), p.beats, p.ties,
                            p.beats_best, p.spearman, p.kendall, p.spearman_admitted,
                            p.kendall_admitted, signature))
    return out


def title(settings: AttacksSettings, rows: Sequence[AttackRow],
          options: RunOptions) -> str:
    return ("Adversarial outputs (Goto et al. 2025) as extra systems: the attack's rank among "
            "the human-ranked systems (1 = best), how many of them the metric puts below it, "
            "and ρ/τ with the attack admitted as the humans' last system")


def table(rows: Sequence[AttackRow], fmt: str) -> str:
    def corr(value: float) -> str:
        return "-" if value != value else f"{value:.3f}"

    headers = ["benchmark", "metric", "spec", "β", "level", "attack", "score", "rank",
               "beats", "beats best", "ρ", "ρ admitted", "τ", "τ admitted"]
    body = [[r.benchmark, r.metric, r.spec, "-" if r.beta is None else f"{r.beta:g}",
             r.level, r.attack, f"{100 * r.score:.2f}", f"{r.rank}/{r.n_systems + 1}",
             f"{r.beats}/{r.n_systems}", "yes" if r.beats_best else "no",
             corr(r.spearman), corr(r.spearman_admitted), corr(r.kendall),
             corr(r.kendall_admitted)]
            for r in rows]
    return render(headers, body, fmt, ["left"] * 6 + ["right"] * 8)


ATTACKS = Analysis(NAME, AttacksSettings, lambda s: s.attacks, run, title, table,
                   check=check, on_load=on_load,
    row=AttackRow)
