"""The defaults of the meta-evaluation's options, once: the options, the CLI's
``--help`` and the analyses that take them as keyword defaults read them here
(this module imports nothing)."""

AGGREGATE_ITEMS = ("judged", "all")  # --aggregate-items
DEFAULT_GRID = "0:5:0.01"  # --sweep-beta alone, --cv-grid
DEFAULT_WINDOW = 4  # --window alone (as SEEDA)
DEFAULT_FOLDS = 10  # --cv-beta alone
DEFAULT_TRUESKILL_RUNS = 10  # --trueskill-runs
MAX_TRUESKILL_RUNS = 10_000
DEFAULT_SUBSETS_MAX = 1000  # --subsets-max
