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
# Every registered metric, for the GMEG and sentence-level tables (cheap: no resampling).
ALL_METRICS=${ALL_METRICS:-"$METRICS -m gleu -m chrf"}
# Bootstrap intervals and comparisons: GLEU is left out by default because each of its
# resamples averages 500 reference draws (~1 min per benchmark for 1000 resamples).
CI_METRICS=${CI_METRICS:-"$METRICS -m chrf"}

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
# GMEG-Data (issue 6): every metric, test and dev splits, 7 systems (6 + source).
# shellcheck disable=SC2086
gecmetrics meta-eval gmeg-fce gmeg-wiki $ALL_METRICS --split test --data-dir "$DATA" \
    --format markdown > docs/results/gmeg-test.md
# shellcheck disable=SC2086
gecmetrics meta-eval gmeg-fce gmeg-wiki $ALL_METRICS --split dev --data-dir "$DATA" \
    --format markdown > docs/results/gmeg-dev.md
# 95% bootstrap intervals (1000 resamples, seed 12345) and metric comparisons.
# shellcheck disable=SC2086
gecmetrics meta-eval gmeg-fce gmeg-wiki $CI_METRICS --bootstrap 1000 --compare \
    --data-dir "$DATA" --format markdown > docs/results/gmeg-ci.md
for HUMAN in ew ts; do
    # shellcheck disable=SC2086
    gecmetrics meta-eval conll14 seeda-s seeda-e $CI_METRICS --seeda-corpus all --human "$HUMAN" \
        --bootstrap 1000 --compare --data-dir "$DATA" --format markdown \
        > "docs/results/ci-$HUMAN.md"
done
# Sentence level over the raw pairwise judgments (SEEDA's corr_sentence.py, ties=seeda).
# shellcheck disable=SC2086
gecmetrics meta-eval seeda-s seeda-e conll14 $ALL_METRICS --sentence-level --data-dir "$DATA" \
    --format markdown > docs/results/sentence.md
# shellcheck disable=SC2086
gecmetrics meta-eval seeda-s seeda-e $ALL_METRICS --sentence-level --systems all \
    --data-dir "$DATA" --format markdown > docs/results/sentence-all.md
# Window analysis (4 systems) on SEEDA-S, all sentences.
# shellcheck disable=SC2086
gecmetrics meta-eval seeda-s $ALL_METRICS --seeda-corpus all --window 4 \
    --window-plot docs/img/window-seeda-s.png --data-dir "$DATA" --format markdown \
    > docs/results/window-seeda-s.md
# Cross-validated beta* (10 folds, seed 12345, grid 0:5:0.01).
# shellcheck disable=SC2086
gecmetrics meta-eval conll14 seeda-s gmeg-fce gmeg-wiki $METRICS --seeda-corpus all \
    --cv-beta 10 --data-dir "$DATA" --format markdown > docs/results/cv-beta.md
echo "wrote docs/results/*.md and docs/img/*.png"
