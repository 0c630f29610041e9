#!/bin/sh
# Regenerate the tables and the figure of docs/results.md from the benchmark data.
#
#   sh docs/make-results.sh [DATA_DIR]
#
# DATA_DIR defaults to $GECMETRICS_DATA, else ~/.cache/gecmetrics. Set METRICS to
# change the metric list (once GLEU and M2 are merged, add
# "-m gleu:variant=paper,seed=official -m gleu:variant=paper,seed=official,tokenize=char -m m2").
set -eu
cd "$(dirname "$0")/.."
DATA=${1:-${GECMETRICS_DATA:-$HOME/.cache/gecmetrics}}
METRICS=${METRICS:-"-m green -m green:tokenize=char,n=6"}

# Table 2 of the GREEN paper: SEEDA on all 1,312 sentences, base systems, both levels.
# shellcheck disable=SC2086
gecmetrics meta-eval conll14 seeda-s seeda-e $METRICS --seeda-corpus all \
    --level corpus --level mean --data-dir "$DATA" --format markdown > docs/results/table2.md
# SEEDA's own instruction: score only the judged subset (391 sentences).
# shellcheck disable=SC2086
gecmetrics meta-eval seeda-s seeda-e $METRICS --seeda-corpus subset \
    --level corpus --level mean --data-dir "$DATA" --format markdown > docs/results/subset.md
# Beta sweeps, 0.00 to 5.00 step 0.01 (Figure 3 of the GREEN paper, plus rho).
# shellcheck disable=SC2086
gecmetrics meta-eval conll14 $METRICS --sweep-beta 0:5:0.01 \
    --plot docs/img/beta-sweep-conll14.png --data-dir "$DATA" --format markdown \
    > docs/results/sweep-conll14.md
# shellcheck disable=SC2086
gecmetrics meta-eval seeda-s seeda-e $METRICS --seeda-corpus all --sweep-beta 0:5:0.01 \
    --plot docs/img/beta-sweep-seeda.png --data-dir "$DATA" --format markdown \
    > docs/results/sweep-seeda.md
echo "wrote docs/results/*.md and docs/img/beta-sweep-*.png"
