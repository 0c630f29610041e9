"""Every option of a meta-evaluation, in one frozen dataclass checked once.

:class:`MetaEvalOptions` is what ``gecmetrics meta-eval`` builds from its flags
and what :func:`gecmetrics.meta_evaluate` builds from its keywords, so both
accept and refuse the same things with the same one-line messages (they name
the CLI flags, which the docs describe). ``__post_init__`` runs every check
that needs no data (the value checks of :mod:`gecmetrics.validate`, which
options combine, which apply to what was chosen) and resolves the metric specs,
so a typo costs nothing; checks that need the data (window size against the
number of systems, score files against the corpus) run when the data is read.

Options whose defaults are real values (``split``, ``seeda_corpus``, ``ties``,
``levels``) cannot tell "asked for" from "default": ``explicit`` names those
the caller gave (the CLI: flags on the command line; the API: keywords passed),
and an explicit one that applies to nothing chosen is an error.

This module imports nothing heavy at import time. The benchmark-specific
choices (benchmark names, ``--systems``, ``--human``, ``--split``,
``--seeda-corpus`` ...) and which benchmarks each option applies to come from
the benchmarks' data descriptions through :mod:`.benchmarks.registry`, which the
CLI reads too while building ``--help``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, get_args

from gecmetrics.errors import ConfigError
from gecmetrics.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

from .benchmarks import registry
from .pairwise import TIE_POLICIES

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

# Benchmark names, system sets, human score kinds and the benchmark-specific
# options (--split, --seeda-corpus ...) are declared by each benchmark's data
# description and read through :mod:`.benchmarks.registry` (light: json only), so
# they are plain ``str`` here, checked at run time against the registry (a
# hand-written Literal would have to be edited for every new benchmark).
BenchmarkName = str
SystemSet = str
HumanKind = str
SeedaCorpus = str
Split = str
Level = Literal["corpus", "mean", "ew", "trueskill"]
AggregateItems = Literal["judged", "all"]
Ties = Literal["seeda", "discordant", "neutral", "exclude"]
ClusterStat = Literal["pearson", "spearman", "kendall", "pairwise", "spa"]
HumanUnit = Literal["items", "comparisons"]

LEVELS: tuple[str, ...] = get_args(Level)
TIES: tuple[str, ...] = TIE_POLICIES
AGGREGATE_ITEMS: tuple[str, ...] = get_args(AggregateItems)
# Levels whose system scores aggregate pairwise comparisons of sentence scores (.aggregate).
AGGREGATION_LEVELS = ("ew", "trueskill")
CLUSTER_STATS: tuple[str, ...] = get_args(ClusterStat)
HUMAN_UNITS: tuple[str, ...] = get_args(HumanUnit)

# The registry-derived names of earlier versions, computed when read (so a
# benchmark registered later is included): BENCHMARKS, SYSTEM_SETS,
# HUMAN_KINDS, HUMAN_OF, GMEG, SEEDA, SEEDA_CORPORA, SPLITS.
_DERIVED = {
    "BENCHMARKS": lambda: registry.benchmark_names(),
    "SYSTEM_SETS": lambda: registry.system_set_choices(),
    "HUMAN_KINDS": lambda: registry.human_kinds(),
    "HUMAN_OF": lambda: registry.human_of(),
    "GMEG": lambda: registry.takes("split"),
    "SEEDA": lambda: registry.takes("seeda_corpus"),
    "SEEDA_CORPORA": lambda: registry.option("seeda_corpus").values,
    "SPLITS": lambda: registry.option("split").values,
}


def __getattr__(name: str) -> Any:
    if name in _DERIVED:
        return _DERIVED[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Defaults of the options that take an optional value (the CLI flag alone, or True here).
DEFAULT_GRID = "0:5:0.01"
DEFAULT_WINDOW = 4
DEFAULT_FOLDS = 10
DEFAULT_TRUESKILL_RUNS = 10
MAX_TRUESKILL_RUNS = 10_000
DEFAULT_SUBSETS_MAX = 1000


def _choice(option: str, value: Any, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ConfigError(f"{option} must be one of {', '.join(allowed)} (got {value!r})")


def _count(option: str, value: Any, default: int) -> int | None:
    """``None`` (off), ``True`` (the flag alone: ``default``) or a whole number."""
    if value is None or value is False:
        return None
    if value is True:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise ConfigError(f"{option} takes a whole number (got {value!r})")
    return value


@dataclass(frozen=True)
class MetaEvalOptions:
    """The options of one meta-evaluation (field = CLI flag; see docs/meta-eval.md).

    ``metrics``: spec strings (``"green:tokenize=char"``) or :class:`Metric`
    objects (a :class:`~.score_files.ScoresMetric` included); ``scores``:
    ``"NAME=PATH[:OPTS]"`` texts of ``--scores`` or metrics, evaluated after
    ``metrics``. ``bootstrap``/``window``/``cv_folds`` accept ``True`` for the
    flag's default. After construction, :attr:`metric_objects` holds the metrics.
    """

    benchmarks: tuple[str, ...]  # BenchmarkName values (checked: one of BENCHMARKS)
    metrics: tuple[str | Metric, ...] = ()
    scores: tuple[str | Metric, ...] = ()
    system_set: str | None = None  # a name of registry.system_set_choices()
    human: str | None = None  # a kind of registry.human_kinds()
    levels: tuple[Level, ...] = ("corpus",)
    betas: tuple[float, ...] = ()
    grid: str | None = None
    plot: str | None = None
    seeda_corpus: str | None = None  # None: the registry's default (subset)
    split: str | None = None  # None: the registry's default (test)
    references: tuple[str, ...] | None = None  # conll14 reference sets; None: ("nucle",)
    bootstrap: int | None = None
    seed: int | None = None
    compare: bool = False
    sentence_level: bool = False
    ties: Ties = "seeda"
    window: int | None = None
    window_plot: str | None = None
    cv_folds: int | None = None
    cv_grid: str | None = None
    data_dir: str | None = None
    aggregate_items: AggregateItems = "judged"
    trueskill_runs: int = DEFAULT_TRUESKILL_RUNS
    subsets: int | None = None
    subsets_max: int = DEFAULT_SUBSETS_MAX
    subsets_plot: str | None = None
    pairwise: bool = False
    tie_calibration: bool = False
    spa: bool = False
    clusters: ClusterStat | None = None
    clusters_plot: str | None = None
    human_intervals: bool = False
    human_plot: str | None = None
    human_unit: HumanUnit = "items"
    pool: bool = False  # pooled leaderboard (meta_eval/pool.py)
    pool_weights: str | None = None  # "BENCH=W,..."; default 1 per benchmark
    pool_plot: str | None = None
    explicit: frozenset[str] = frozenset()
    metric_objects: tuple[Metric, ...] = field(init=False, repr=False, compare=False)
    notes: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__.__get__(self)  # a frozen dataclass: normalise in place
        if isinstance(self.benchmarks, str):
            set_("benchmarks", (self.benchmarks,))
        set_("benchmarks", tuple(dict.fromkeys(self.benchmarks)))
        for name in ("metrics", "scores", "betas"):
            value = getattr(self, name)
            set_(name, (value,) if isinstance(value, str) else tuple(value))
        levels = (self.levels,) if isinstance(self.levels, str) else self.levels
        set_("levels", tuple(dict.fromkeys(levels)) or ("corpus",))
        set_("explicit", frozenset(self.explicit))
        set_("bootstrap", _count("--bootstrap", self.bootstrap, DEFAULT_RESAMPLES))
        set_("window", _count("--window", self.window, DEFAULT_WINDOW))
        set_("cv_folds", _count("--cv-beta", self.cv_folds, DEFAULT_FOLDS))
        set_("trueskill_runs", _count("--trueskill-runs", self.trueskill_runs,
                                      DEFAULT_TRUESKILL_RUNS))
        set_("subsets", _count("--subsets", self.subsets, 0))
        set_("subsets_max", _count("--subsets-max", self.subsets_max, DEFAULT_SUBSETS_MAX))
        if self.seed is not None:
            set_("seed", _count("--seed", self.seed, DEFAULT_SEED))
        if self.grid is None and self.plot is not None:  # --plot implies a sweep
            set_("grid", DEFAULT_GRID)
        unknown = self.explicit - {f.name for f in fields(self)}
        if unknown:
            raise ConfigError(f"unknown meta-evaluation option {sorted(unknown)[0]!r}; "
                              f"known: {', '.join(f.name for f in fields(self) if f.init)}")
        for name, option in registry.benchmark_options().items():
            if not hasattr(self, name):
                raise ConfigError(f"benchmark option {name!r} (a benchmark description's "
                                  "\"options\") has no field in MetaEvalOptions")
            if getattr(self, name) is None or getattr(self, name) == ():
                set_(name, option.default)
            elif option.multiple and isinstance(getattr(self, name), str):
                set_(name, (getattr(self, name),))
            elif option.multiple:
                set_(name, tuple(dict.fromkeys(getattr(self, name))))
        notes: list[str] = []
        self._check_choices()
        self._check_explicit(notes)
        set_("metric_objects", self._resolve_metrics())
        self._check_values(notes)
        self._check_pair_stats()
        set_("notes", tuple(notes))

    # -- the checks, in the order the CLI has always run them -----------------------------

    def _check_choices(self) -> None:
        """Enumerated values (click checks them for the CLI; Python callers get one line)."""
        names = registry.benchmark_names()
        if not self.benchmarks:
            raise ConfigError("no benchmark given; choose one or more of: "
                              f"{', '.join(names)}")
        for name in self.benchmarks:
            _choice("benchmark", name, names)
        for level in self.levels:
            _choice("--level", level, LEVELS)
        if self.system_set is not None:
            _choice("--systems", self.system_set, registry.system_set_choices())
        if self.human is not None:
            _choice("--human", self.human, registry.human_kinds())
        for name, option in registry.benchmark_options().items():
            value = getattr(self, name)
            for one in (value if option.multiple else (value,)):
                _choice(option.flag, one, option.values)
        _choice("--ties", self.ties, TIES)
        _choice("--aggregate-items", self.aggregate_items, AGGREGATE_ITEMS)

    def _check_explicit(self, notes: list[str]) -> None:
        """Options given explicitly must apply to something chosen."""
        from gecmetrics.validate import applies_to, needs

        given, benchmarks = self.explicit, list(self.benchmarks)
        for name, option in registry.benchmark_options().items():
            if name in given:
                applies_to(option.flag, benchmarks, registry.takes(name), option.label, notes)
        aggregated = self.aggregation_levels
        if "ties" in given:
            needs("--ties", "--sentence-level or --level ew/trueskill",
                  self.sentence_level or bool(aggregated))
        if aggregated and self.ties == "discordant":
            raise ConfigError(f"--ties discordant does not apply to --level {aggregated[0]} "
                              "(a metric tie has no human judgment to disagree with); choose "
                              "seeda, neutral or exclude")
        if "aggregate_items" in given:
            needs("--aggregate-items", "--level ew or --level trueskill", bool(aggregated))
        if "trueskill_runs" in given:
            needs("--trueskill-runs", "--level trueskill", "trueskill" in self.levels)
        for flag, name in (("--subsets-max", "subsets_max"), ("--subsets-plot", "subsets_plot")):
            if name in given:
                needs(flag, "--subsets K", self.subsets is not None)
        if "levels" in given and self.sentence_level:
            raise ConfigError("--level does not apply to --sentence-level (it scores "
                              "sentences); drop --level")
        if self.human is not None:
            wrong = [b for b in benchmarks if self.human not in registry.spec(b).human]
            if wrong:
                kinds = registry.spec(wrong[0]).human
                raise ConfigError(f"--human: benchmark {wrong[0]} has no human scores "
                                  f"{self.human!r}; choose one of: {', '.join(kinds)}")
        if self.system_set is not None:
            aliases = registry.set_aliases()
            wanted = aliases.get(self.system_set, self.system_set)
            wrong = [b for b in benchmarks if wanted not in registry.spec(b).system_sets]
            if wrong:
                sets = registry.spec(wrong[0]).system_sets
                raise ConfigError(f"benchmark {wrong[0]} has no system set "
                                  f"{self.system_set!r}; choose one of: {', '.join(sets)}")

    def benchmark_options(self, name: str) -> dict[str, Any]:
        """The options benchmark ``name`` takes, as its loader's keywords."""
        return {field: getattr(self, field) for field in registry.spec(name).options}

    def _resolve_metrics(self) -> tuple[Metric, ...]:
        """Score files are read first (as the CLI always did), then specs are parsed."""
        from gecmetrics.metric import Metric
        from gecmetrics.registry import metric_from_spec

        from .score_files import parse_scores_option

        def one(item: Any, parse: Any, what: str) -> Metric:
            if isinstance(item, Metric):
                return item
            if isinstance(item, str):
                return parse(item)
            raise ConfigError(f"{what} takes spec strings or Metric objects (got {item!r})")

        scores = [one(s, parse_scores_option, "scores") for s in self.scores]
        metrics = [one(s, metric_from_spec, "metrics") for s in self.metrics] + scores
        if not metrics:
            raise ConfigError("no metric given; add -m SPEC (e.g. -m green) and/or "
                              "--scores NAME=PATH")
        return tuple(metrics)

    def _check_values(self, notes: list[str]) -> None:
        from gecmetrics.validate import (
            beta_options_apply,
            check_beta,
            check_folds,
            check_plot_file,
            check_resamples,
            check_seed,
            check_window,
            needs,
            parse_beta_grid,
        )

        metrics = self.metric_objects
        object.__setattr__(self, "betas", tuple(check_beta(b, "-b/--beta") for b in self.betas))
        if self.betas and self.grid is not None:
            raise ConfigError("give either -b/--beta or --sweep-beta/--plot, not both")
        beta_options_apply(metrics, notes, **{"-b/--beta": bool(self.betas),
                                              "--sweep-beta/--plot": self.grid is not None,
                                              "--cv-beta": self.cv_folds is not None})
        extras = {"--bootstrap": self.bootstrap is not None, "--compare": self.compare,
                  "--window": self.window is not None, "--cv-beta": self.cv_folds is not None}
        asked = [name for name, on in extras.items() if on]
        if self.grid is not None and asked:
            raise ConfigError(f"{asked[0]} works at the given betas; it cannot be combined "
                              "with --sweep-beta/--plot")
        if self.sentence_level and (asked or self.grid is not None):
            raise ConfigError(f"--sentence-level cannot be combined with "
                              f"{(asked or ['--sweep-beta/--plot'])[0]}")
        if self.compare and len(metrics) < 2:
            raise ConfigError("--compare needs at least two metrics (-m A -m B)")
        if self.bootstrap is not None:
            check_resamples(self.bootstrap)
        if self.window is not None:
            check_window(self.window)
        if self.cv_folds is not None:
            check_folds(self.cv_folds)
        if self.window_plot is not None:
            needs("--window-plot", "--window W", self.window is not None)
        if self.cv_grid is not None:
            needs("--cv-grid", "--cv-beta K", self.cv_folds is not None)
        if self.seed is not None:
            needs("--seed", "--bootstrap, --compare, --cv-beta, --spa, --clusters, "
                  "--human-intervals, --level trueskill or --subsets (the analyses that draw "
                  "at random)",
                  self.bootstrap is not None or self.compare or self.cv_folds is not None
                  or self.spa or self.clusters is not None or self.human_intervals
                  or "trueskill" in self.levels or self.subsets is not None)
            check_seed(self.seed)
        self._check_aggregation_and_subsets(asked)
        if self.grid is not None:
            parse_beta_grid(self.grid)
        if self.cv_folds is not None:
            parse_beta_grid(self.cv_grid_text, "--cv-grid")
        if self.plot is not None:
            check_plot_file(self.plot, "--plot")  # fail before the work, not after
        if self.window_plot is not None:
            check_plot_file(self.window_plot, "--window-plot")
        self._check_pool()

    def _check_pool(self) -> None:
        from gecmetrics.validate import check_plot_file, needs

        from .pool import parse_weights

        needs("--pool-weights", "--pool", self.pool or self.pool_weights is None)
        needs("--pool-plot", "--pool", self.pool or self.pool_plot is None)
        if self.pool and self.grid is not None:
            raise ConfigError("--pool ranks metrics at the given betas; it cannot be combined "
                              "with --sweep-beta/--plot")
        if self.pool:
            parse_weights(self.pool_weights, self.benchmarks)
        if self.pool_plot is not None:
            check_plot_file(self.pool_plot, "--pool-plot")

    def _check_aggregation_and_subsets(self, asked: list[str]) -> None:
        """--level ew/trueskill rebuild system scores from sentence comparisons: the
        analyses that resample or re-score sentences cannot follow them (one line says
        which); --subsets needs system-level rows."""
        from gecmetrics.validate import check_int_range, check_plot_file

        aggregated = self.aggregation_levels
        if aggregated:
            blocked = [a for a in asked if a != "--window"]
            pair_stats = [flag for flag, on in (
                ("--pairwise", self.pairwise), ("--tie-calibration", self.tie_calibration),
                ("--spa", self.spa), ("--clusters", self.clusters is not None)) if on]
            if pair_stats:  # they read the metric's corpus/mean system scores
                raise ConfigError(f"{pair_stats[0]} works on corpus or mean system scores, not "
                                  f"--level {aggregated[0]}; use --level corpus or mean with "
                                  f"{pair_stats[0]}, or drop it")
            if self.grid is not None:
                blocked.append("--sweep-beta/--plot")
            if blocked:
                raise ConfigError(f"{blocked[0]} is not available at --level {aggregated[0]} "
                                  "(it would re-aggregate every resample or beta); use --level "
                                  f"corpus or mean with {blocked[0]}, or drop it")
        check_int_range(self.trueskill_runs, "--trueskill-runs", 0, MAX_TRUESKILL_RUNS,
                        "a number of runs (0: one run in the data's order)")
        if self.subsets is not None:
            if self.sentence_level or self.grid is not None:
                raise ConfigError("--subsets works on system-level correlations; it cannot be "
                                  "combined with " + ("--sentence-level" if self.sentence_level
                                                      else "--sweep-beta/--plot"))
            check_int_range(self.subsets, "--subsets", 3, 10_000,
                            "a number of systems per subset")
        check_int_range(self.subsets_max, "--subsets-max", 1, 1_000_000, "a number of subsets")
        if self.subsets_plot is not None:
            check_plot_file(self.subsets_plot, "--subsets-plot")

    def _check_pair_stats(self) -> None:
        """--pairwise, --tie-calibration, --spa, --clusters, --human-intervals (docs:
        docs/meta-eval.md, "Pairwise accuracy, SPA, clusters, human intervals")."""
        from gecmetrics.validate import check_plot_file, needs

        if self.clusters is not None:
            _choice("--clusters", self.clusters, CLUSTER_STATS)
        _choice("--human-unit", self.human_unit, HUMAN_UNITS)
        if "human_unit" in self.explicit:
            needs("--human-unit", "--spa, --clusters spa or --human-intervals (the analyses "
                  "that resample the human judgments)",
                  self.spa or self.clusters == "spa" or self.human_intervals)
        system_only = {"--pairwise": self.pairwise, "--spa": self.spa,
                       "--clusters": self.clusters is not None,
                       "--human-intervals": self.human_intervals}
        asked = [name for name, on in system_only.items() if on]
        if asked and self.sentence_level:
            raise ConfigError(f"{asked[0]} is a system-level statistic; drop it or drop "
                              "--sentence-level (--tie-calibration works at both levels)")
        if self.grid is not None and (asked or self.tie_calibration):
            raise ConfigError(f"{(asked or ['--tie-calibration'])[0]} works at the given "
                              "betas; it cannot be combined with --sweep-beta/--plot")
        if self.clusters_plot is not None:
            needs("--clusters-plot", "--clusters STAT", self.clusters is not None)
            check_plot_file(self.clusters_plot, "--clusters-plot")
        if self.human_plot is not None:
            needs("--human-plot", "--human-intervals", self.human_intervals)
            check_plot_file(self.human_plot, "--human-plot")

    # -- derived values ------------------------------------------------------------------

    @property
    def aggregation_levels(self) -> list[str]:
        """The levels asked for that aggregate comparisons (ew, trueskill)."""
        return [level for level in self.levels if level in AGGREGATION_LEVELS]

    def aggregate_settings(self) -> Any:
        """The :class:`~.aggregate.AggregateSettings` of these options (``ties``: as
        given, else ``neutral``)."""
        from .aggregate import AggregateSettings

        # A metric tie is a draw unless --ties says otherwise: the seeda rule (a loss for
        # the alphabetically earlier system) would rank systems by name wherever outputs
        # coincide (GJG15's items group identical outputs: AMU would lose them all).
        ties = self.ties if "ties" in self.explicit else "neutral"
        return AggregateSettings(self.aggregate_items, ties, self.trueskill_runs,
                                 self.seed_value)

    @property
    def seed_value(self) -> int:
        """The seed the random analyses use (``seed`` or the default, 12345)."""
        return DEFAULT_SEED if self.seed is None else self.seed

    @property
    def cv_grid_text(self) -> str:
        return DEFAULT_GRID if self.cv_grid is None else self.cv_grid

    @property
    def compare_resamples(self) -> int:
        """Resamples of ``--compare``: those of ``--bootstrap``, else the default."""
        return self.bootstrap or DEFAULT_RESAMPLES

    @property
    def stat_resamples(self) -> int:
        """Resamples of --spa, --clusters and --human-intervals: those of --bootstrap,
        else the default (1000)."""
        return self.bootstrap or DEFAULT_RESAMPLES

    @property
    def mode(self) -> Literal["sentence", "sweep", "system"]:
        """Which output: sentence-level agreement, a beta sweep, or system-level rows."""
        if self.sentence_level:
            return "sentence"
        return "sweep" if self.grid is not None else "system"
