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

This module knows the registry of analyses (their flags, settings and checks),
so it sits above them: the analyses and the modules below see these options as
:class:`~.run_options.RunOptions`, the Protocol of the values they read, which
:class:`MetaEvalOptions` matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, get_args

from gecmetrics.errors import ConfigError
from gecmetrics.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from gecmetrics.validate import (
    applies_to,
    as_items,
    beta_options_apply,
    check_beta,
    check_betas,
    check_choice,
    check_instance,
    check_int_range,
    check_mapping,
    check_output_file,
    check_outputs,
    check_plot_file,
    check_seed,
    needs,
    parse_beta_grid,
)

from .analyses import ANALYSES
from .analysis import either
from .benchmarks import registry
from .defaults import (
    AGGREGATE_ITEMS,
    DEFAULT_GRID,
    DEFAULT_TRUESKILL_RUNS,
    MAX_TRUESKILL_RUNS,
)
from .flags import check_switches, count, flagged, option
from .levels import AGGREGATION_LEVELS, LEVELS, Level
from .sentence_agreement import TIE_POLICIES

if TYPE_CHECKING:
    from gecmetrics.metric import Metric

AggregateItems = Literal["judged", "all"]
Ties = Literal["seeda", "discordant", "neutral", "exclude"]
HumanUnit = Literal["items", "comparisons"]

TIES: tuple[str, ...] = TIE_POLICIES
HUMAN_UNITS: tuple[str, ...] = get_args(HumanUnit)



def _flags(use: str) -> list[str]:
    """The flags of the registered analyses that declare ``use`` (``random`` ...)."""
    return [getattr(a, use)[0] for a in ANALYSES if getattr(a, use) is not None]


def _given(options: MetaEvalOptions, use: str) -> bool:
    """Whether an analysis that declares ``use`` is asked for by ``options``."""
    return any(getattr(a, use)[1](options.settings[a.name]) for a in ANALYSES
               if getattr(a, use) is not None)


#: How each list option is written from Python, for the message of a lone value.
EXAMPLES = {"benchmarks": '["conll14"]', "metrics": '["green", "m2"]',
            "scores": '["mine=scores.json"]', "levels": '["corpus", "mean"]'}



def _normalised(value: Any, spec: registry.OptionSpec) -> Any:
    """A benchmark option's value: its default when not given, a tuple without repeats
    for an option that takes several."""
    if value is None or value == ():
        return spec.default
    if spec.multiple:
        return as_items(value, spec.field, f'["{spec.values[0]}"]') if isinstance(
            value, str) else tuple(dict.fromkeys(as_items(value, spec.field,
                                                          f'["{spec.values[0]}"]')))
    return value

@dataclass(frozen=True)
class MetaEvalOptions:
    """The options of one meta-evaluation (field = CLI flag; see docs/meta-eval.md).

    ``metrics``: spec strings (``"green:tokenize=char"``) or :class:`Metric`
    objects (a :class:`~.score_files.ScoresMetric` included); ``scores``:
    ``"NAME=PATH[:OPTS]"`` texts of ``--scores`` or metrics, evaluated after
    ``metrics``. An analysis's count (``bootstrap``, ``window``, ``cv_folds``)
    accepts ``True`` for the flag's default; ``settings``: each
    registered analysis's settings, by name (:meth:`from_keywords` builds them from
    flat keywords). After construction, :attr:`metric_objects` holds the metrics.
    """

    benchmarks: tuple[str, ...]  # names of registry.benchmark_names() (checked)
    metrics: tuple[str | Metric, ...] = option(
        (), "-m", "--metric", multiple=True, metavar="SPEC",
        help="Metric as name[:key=value,...]; repeat for several, e.g. "
             "-m green -m green:tokenize=char,n=6. At least one -m or --scores.")
    scores: tuple[str | Metric, ...] = option(
        (), "--scores", multiple=True, metavar="NAME=PATH[:OPTS]",
        help="Your own metric's scores computed elsewhere: a system<TAB>score TSV, JSON "
             "{system: score | [sentence scores]}, a folder of per-system sentence "
             "scores, or `gecmetrics score --format json` output (PATH -: standard "
             "input); shown as NAME. "
             "Options: order=lower (lower is better), beta=B, spec=SPEC (last). "
             "Repeatable; see docs/own-metric.md.")
    system_set: str | None = option(  # a name of registry.system_set_choices()
        None, "--systems", kind="choice", choices=registry.system_set_choices,
        help="Systems to correlate. Default: all 13 for conll14 (base = without "
             "INPUT), base for SEEDA (12: no INPUT, REF-F, GPT-3.5; +INPUT adds "
             "INPUT, +fluency adds REF-F and GPT-3.5 (no INPUT), all = 15), all 7 for "
             "GMEG (6 systems + source; base = the 6; +source = +INPUT = all).")
    human: str | None = option(  # a kind of registry.human_kinds()
        None, "--human", kind="choice", choices=registry.human_kinds,
        help="Human system scores: Expected Wins (conll14: recomputed from the "
             "judgments) or TrueSkill (published); GMEG has only its ratings "
             "(rating); conll14 also has napoles15-ew/-ts (Napoles et al. 2015; "
             "see docs/benchmarks.md). [default: ew; GMEG: rating]")
    levels: tuple[Level, ...] = option(
        ("corpus",), "--level", kind="choice", choices=LEVELS, multiple=True,
        help="System score: the metric's corpus score, the mean of its sentence "
             "scores, or its sentence scores compared pairwise and aggregated as the "
             "humans' judgments are: Expected Wins (ew) or TrueSkill (trueskill). "
             "Repeatable. [default: corpus]")
    aggregate_items: AggregateItems = option(
        "judged", "--aggregate-items", kind="choice", choices=AGGREGATE_ITEMS,
        show_default=True,
        requires=("--level ew or --level trueskill", lambda o: bool(o.aggregation_levels)),
        help="--level ew/trueskill: compare systems on the ranking items the humans "
             "judged (judged) or on every sentence and every pair of systems (all).")
    trueskill_runs: int = option(
        DEFAULT_TRUESKILL_RUNS, "--trueskill-runs", kind="int", show_default=True,
        metavar="R", requires=("--level trueskill", lambda o: "trueskill" in o.levels),
        help="--level trueskill: rate the comparisons in R seeded random orders and "
             "average (0: once, in the data's order, as gec-metrics).")
    betas: tuple[float, ...] = option(
        (), "-b", "--beta", multiple=True, metavar="BETA",
        help="Beta for every metric that has one (repeat for several; default: each "
             "metric's own).")
    grid: str | None = option(
        None, "--sweep-beta", alone=DEFAULT_GRID, metavar="START:STOP:STEP",
        help=f"Sweep beta over a grid (STOP included; alone: {DEFAULT_GRID}) and report "
             "the best beta for r and for rho.")
    plot: str | None = option(
        None, "--plot", kind="file", metavar="FILE",
        help="Plot r and rho against beta for every swept metric (.png, .svg or .pdf). "
             "Implies --sweep-beta.")
    seeda_corpus: str | None = option(  # None: the registry's default (subset)
        None, "--seeda-corpus", kind="choice",
        choices=lambda: registry.option("seeda_corpus").values,
        help="SEEDA: score the judged subset (SEEDA's instruction) or all 1,312 "
             "sentences (as the GREEN paper did). [default: "
             f"{registry.option('seeda_corpus').default}]")
    split: str | None = option(  # None: the registry's default (test)
        None, "--split", kind="choice", choices=lambda: registry.option("split").values,
        help=f"GMEG: the split to score. [default: {registry.option('split').default}]")
    references: tuple[str, ...] | None = option(  # conll14 reference sets; None: ("nucle",)
        None, "--references", kind="choice",
        choices=lambda: registry.option("references").values, multiple=True, metavar="SET",
        help="conll14: the reference sets (repeat to combine): nucle (the official M2, "
             "2 annotators), expert-fluency, expert-minimal, turker-fluency, "
             "turker-minimal (Sakaguchi et al. 2016, 2 annotators each). [default: "
             "nucle]")
    seed: int | None = option(
        None, "--seed", kind="int", metavar="S",
        requires=(lambda: f"{either([*_flags('random'), '--level trueskill'])} (the "
                  "analyses that draw at random)",
                  lambda o: _given(o, "random") or "trueskill" in o.levels),
        help="Seed of the bootstrap resamples and CV folds, 0 to 2**32-1 (recorded). "
             "[default: 12345]")
    sentence_level: bool = option(
        False, "--sentence-level", kind="flag",
        help="Sentence-level meta-evaluation over the raw pairwise human judgments "
             "(SEEDA, conll14/GJG15; GMEG: its segment ratings): accuracy and "
             "Kendall-like tau.")
    ties: Ties = option(
        "seeda", "--ties", kind="choice", choices=TIES, show_default=True,
        requires=("--sentence-level or --level ew/trueskill",
                  lambda o: o.sentence_level or bool(o.aggregation_levels)),
        help="--sentence-level and --level ew/trueskill: how a metric tie counts "
             "(seeda: a loss for the system earlier in alphabetical order, as SEEDA's "
             "corr_sentence.py; neutral: a draw, the default at ew/trueskill).")
    human_unit: HumanUnit = option(
        "items", "--human-unit", kind="choice", choices=HUMAN_UNITS, show_default=True,
        requires=(lambda: f"{either(_flags('resamples_humans'))} (the analyses that "
                  "resample the human judgments)", lambda o: _given(o, "resamples_humans")),
        help="What the human bootstrap draws: ranking items, or single pairwise "
             "comparisons (as GJG15 did; reproduces their Table 3b).")
    data_dir: str | None = option(
        None, "--data-dir", kind="folder", metavar="DIR", trailing=True,
        help="Folder with the benchmark data (laid out as upstream). Default: "
             "$GECMETRICS_DATA, else $XDG_CACHE_HOME/gecmetrics, else ~/.cache/gecmetrics.")
    html: str | None = option(
        None, "--html", kind="file", metavar="FILE.html", trailing=True,
        help="Also write a self-contained HTML report: the correlation tables (sortable), "
             "every table of the run, and its figures as inline SVG (docs/report.md).")
    settings: Mapping[str, Any] = field(default_factory=dict)  # analysis name -> its settings
    #: A benchmark's own options that have no field here: option name -> value, as the
    #: benchmark's data description declares them ("options"; their flags come from
    #: there too). ``split``, ``seeda_corpus`` and ``references`` keep their fields.
    benchmark_settings: Mapping[str, Any] = field(default_factory=dict)
    explicit: frozenset[str] = frozenset()
    metric_objects: tuple[Metric, ...] = field(init=False, repr=False, compare=False)
    notes: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__.__get__(self)  # a frozen dataclass: normalise in place
        for name in ("benchmarks", "metrics", "scores", "betas", "levels"):
            value = getattr(self, name)
            if name == "betas" and not isinstance(value, (str, Iterable)):
                check_betas(value)  # betas=2: not a list of betas; ScoreOptions' words
            if not isinstance(value, (str, Iterable)):
                raise ConfigError(f"{name}= takes a list (or one name as a string), e.g. "
                                  f"{name}={EXAMPLES[name]} (got {value!r})")
        if isinstance(self.benchmarks, str):
            set_("benchmarks", (self.benchmarks,))
        set_("benchmarks", tuple(dict.fromkeys(self.benchmarks)))
        for name in ("metrics", "scores", "betas"):
            value = getattr(self, name)
            set_(name, (value,) if isinstance(value, str) else tuple(value))
        levels = (self.levels,) if isinstance(self.levels, str) else self.levels
        set_("levels", tuple(dict.fromkeys(levels)) or ("corpus",))
        set_("explicit", frozenset(as_items(self.explicit, "explicit", '["levels"]')))
        for name in self.explicit:
            check_instance(name, "explicit item", str, "an option name (a string)")
        set_("trueskill_runs", count("--trueskill-runs", self.trueskill_runs,
                                      DEFAULT_TRUESKILL_RUNS))
        if self.seed is not None:
            set_("seed", count("--seed", self.seed, DEFAULT_SEED))
        if self.grid is None and self.plot is not None:  # --plot implies a sweep
            set_("grid", DEFAULT_GRID)
        check_mapping(self.settings, "settings", "a mapping of analysis names to settings")
        set_("settings", {a.name: self.settings.get(a.name) or a.settings() for a in ANALYSES})
        known = [f.name for f in fields(self) if f.init] + [
            f.name for a in ANALYSES for f in fields(a.settings)] + list(
            registry.benchmark_options())
        unknown = self.explicit - set(known)
        if unknown:
            raise ConfigError(f"unknown meta-evaluation option {sorted(unknown)[0]!r}; "
                              f"known: {', '.join(known)}")
        declared = registry.benchmark_options()
        if not isinstance(self.benchmark_settings, Mapping):
            raise ConfigError("benchmark_settings= takes a mapping of benchmark options to "
                              f"values (got {self.benchmark_settings!r})")
        stray = sorted(n for n in self.benchmark_settings
                       if n not in declared or n in self.__dataclass_fields__)
        if stray:
            raise ConfigError(f"benchmark_settings: {stray[0]!r} is not a benchmark option "
                              "without a field here; benchmark options: "
                              f"{', '.join(declared)}")
        own = {}
        for name, spec in declared.items():
            if hasattr(self, name):
                set_(name, _normalised(getattr(self, name), spec))
            elif name in self.benchmark_settings:
                own[name] = _normalised(self.benchmark_settings[name], spec)
        set_("benchmark_settings", own)
        notes: list[str] = []
        for owner in (self, *self.settings.values()):
            check_switches(owner)
        self._check_choices()
        self._check_explicit(notes)
        check_outputs(self.output_files(), self.input_files())  # before any file is read
        set_("metric_objects", self._resolve_metrics())
        self._check_values(notes)
        check_choice("--human-unit", self.human_unit, HUMAN_UNITS)
        for analysis in ANALYSES:
            settings = self.settings[analysis.name]
            self._check_requirements(settings)
            if analysis.check is not None:
                analysis.check(settings, self)
        set_("notes", tuple(notes))

    @classmethod
    def from_keywords(cls, **keywords: Any) -> MetaEvalOptions:
        """Options from flat keywords: this class's fields, and the fields of the
        registered analyses' settings (``rank_pairs=True`` ...), as the CLI's flags."""
        settings = {}
        for analysis in ANALYSES:
            names = [f.name for f in fields(analysis.settings)]
            mine = {name: keywords.pop(name) for name in names if name in keywords}
            settings[analysis.name] = analysis.settings(**mine)
        own = keywords.pop("benchmark_settings", {})
        flat = {name: keywords.pop(name) for name in registry.benchmark_options()
                if name in keywords and name not in cls.__dataclass_fields__}
        if flat and isinstance(own, Mapping):  # else __post_init__ names the wrong type
            own = {**own, **flat}
        return cls(**keywords, settings=settings, benchmark_settings=own)

    def output_files(self) -> list[tuple[str, str | None]]:
        """``(flag, path)`` of every file the run writes: the fields of kind "file" of
        these options and of every analysis's settings (figures, ``--html``)."""
        owners = (self, *self.settings.values())
        return [(flag.name, getattr(owner, f.name)) for owner in owners
                for f, flag in flagged(type(owner)) if flag.kind == "file"]

    def input_files(self) -> list[tuple[str, str | None]]:
        """``(flag, path)`` of every file given to read (the ``--scores`` files)."""
        from .score_files import scores_paths

        return [("--scores", path) for path in scores_paths(self.scores)]

    # -- the checks, in the order the CLI has always run them -----------------------------

    def _check_choices(self) -> None:
        """Enumerated values (click checks them for the CLI; Python callers get one line)."""
        names = registry.benchmark_names()
        if not self.benchmarks:
            raise ConfigError("no benchmark given; choose one or more of: "
                              f"{', '.join(names)}")
        for name in self.benchmarks:
            check_choice("benchmark", name, names)
        for level in self.levels:
            check_choice("--level", level, LEVELS)
        if self.system_set is not None:
            check_choice("--systems", self.system_set, registry.system_set_choices())
        if self.human is not None:
            check_choice("--human", self.human, registry.human_kinds())
        for name, spec in registry.benchmark_options().items():
            value = self.benchmark_value(name)
            for one in (value if spec.multiple else (value,)):
                check_choice(spec.flag, one, spec.values)
        check_choice("--ties", self.ties, TIES)
        check_choice("--aggregate-items", self.aggregate_items, AGGREGATE_ITEMS)

    def _check_explicit(self, notes: list[str]) -> None:
        """Options given explicitly must apply to something chosen."""
        given, benchmarks = self.explicit, list(self.benchmarks)
        for name, spec in registry.benchmark_options().items():
            if name in given or name in self.benchmark_settings:
                applies_to(spec.flag, benchmarks, registry.takes(name), spec.label, notes)
        self._check_requirements(self)
        aggregated = self.aggregation_levels
        if aggregated and self.ties == "discordant":
            raise ConfigError(f"--ties discordant does not apply to --level {aggregated[0]} "
                              "(a metric tie has no human judgment to disagree with); choose "
                              "seeda, neutral or exclude")
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

    def _check_requirements(self, owner: Any) -> None:
        """Each option of ``owner`` (these options or an analysis's settings) given
        (explicitly, or set when its default is None) that only means something with
        another (its flag's ``requires``) has that other."""
        for f, flag in flagged(type(owner)):
            if flag.requires is None:
                continue
            value = getattr(owner, f.name)
            if f.name in self.explicit or (f.default is None and value is not None):
                other = flag.requires[0]
                needs(flag.name, other() if callable(other) else other,
                      flag.requires[1](owner))

    def benchmark_options(self, name: str) -> dict[str, Any]:
        """The options benchmark ``name`` takes, as its loader's keywords."""
        return {field: self.benchmark_value(field) for field in registry.spec(name).options}

    def benchmark_value(self, name: str) -> Any:
        """The value of the benchmark option ``name``: its field where it has one, else
        :attr:`benchmark_settings`' entry, else its declared default."""
        if hasattr(self, name):
            return getattr(self, name)
        return self.benchmark_settings.get(name, registry.option(name).default)

    def _resolve_metrics(self) -> tuple[Metric, ...]:
        """Score files are read first (as the CLI always did), then specs are parsed."""
        from gecmetrics.metric import Metric
        from gecmetrics.registry import metric_from_spec

        from .score_files import check_scores_stdin, parse_scores_option

        def one(item: Any, parse: Any, what: str) -> Metric:
            if isinstance(item, Metric):
                return item
            if isinstance(item, str):
                return parse(item)
            raise ConfigError(f"{what} takes spec strings or Metric objects (got {item!r})")

        check_scores_stdin(self.scores)
        scores = [one(s, parse_scores_option, "scores") for s in self.scores]
        metrics = [one(s, metric_from_spec, "metrics") for s in self.metrics] + scores
        if not metrics:
            raise ConfigError("no metric given; add -m SPEC (e.g. -m green) and/or "
                              "--scores NAME=PATH")
        return tuple(metrics)

    def _check_values(self, notes: list[str]) -> None:
        metrics = self.metric_objects
        object.__setattr__(self, "betas", tuple(check_beta(b, "-b/--beta") for b in self.betas))
        if self.betas and self.grid is not None:
            raise ConfigError("give either -b/--beta or --sweep-beta/--plot, not both")
        beta_options_apply(metrics, notes, **{"-b/--beta": bool(self.betas),
                                              "--sweep-beta/--plot": self.grid is not None},
                           **{a.beta[0]: a.beta[1](self.settings[a.name])
                              for a in ANALYSES if a.beta is not None})
        if self.sentence_level and self.grid is not None:
            raise ConfigError("--sentence-level cannot be combined with --sweep-beta/--plot")
        if self.seed is not None:
            check_seed(self.seed)
        self._check_aggregation()
        if self.grid is not None:
            parse_beta_grid(self.grid)
        if self.plot is not None:
            check_plot_file(self.plot, "--plot")  # fail before the work, not after
        if self.html is not None:
            check_output_file(self.html, "--html", (".html", ".htm"))

    def _check_aggregation(self) -> None:
        """--level ew/trueskill rebuild system scores from sentence comparisons: the
        analyses that resample or re-score sentences cannot follow them (one line says
        which)."""
        aggregated = self.aggregation_levels
        if aggregated and self.grid is not None:
            raise ConfigError(f"--sweep-beta/--plot is not available at --level {aggregated[0]} "
                              "(it would re-aggregate every resample or beta); use --level "
                              "corpus or mean with --sweep-beta/--plot, or drop it")
        check_int_range(self.trueskill_runs, "--trueskill-runs", 0, MAX_TRUESKILL_RUNS,
                        "a number of runs (0: one run in the data's order)")

    # -- derived values ------------------------------------------------------------------

    @property
    def aggregation_levels(self) -> list[str]:
        """The levels asked for that aggregate comparisons (ew, trueskill)."""
        return [level for level in self.levels if level in AGGREGATION_LEVELS]

    @property
    def seed_value(self) -> int:
        """The seed the random analyses use (``seed`` or the default, 12345)."""
        return DEFAULT_SEED if self.seed is None else self.seed

    @property
    def compare_resamples(self) -> int:
        """Resamples of ``--compare``: those of ``--bootstrap``, else the default."""
        return self.stat_resamples

    @property
    def stat_resamples(self) -> int:
        """Resamples of --spa, --clusters and --human-intervals: those of --bootstrap,
        else the default (1000): the count of the analysis that declares ``resamples``."""
        counts = [a.resamples(self.settings[a.name]) for a in ANALYSES if a.resamples]
        return next((n for n in counts if n), DEFAULT_RESAMPLES)

    @property
    def mode(self) -> Literal["sentence", "sweep", "system"]:
        """Which output: sentence-level agreement, a beta sweep, or system-level rows."""
        if self.sentence_level:
            return "sentence"
        return "sweep" if self.grid is not None else "system"
