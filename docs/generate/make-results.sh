#!/bin/sh
# Regenerate docs/results.md, its tables (docs/results/*.md) and figures (docs/img/*.png).
#
#   sh docs/generate/make-results.sh [DATA_DIR]
#
# DATA_DIR defaults to $GECMETRICS_DATA, else ~/.cache/gecmetrics. Needs the package
# installed with the plot extra (pip install -e ".[plot]"). The metric lists and the
# meta-eval commands are in docs/generate/make_results.py; the page's prose is
# docs/generate/results.template.md. ERRANT joins every table once its extra is installed:
#   ERRANT=errant:references=text sh docs/generate/make-results.sh DATA_DIR
set -eu
cd "$(dirname "$0")/../.."
case "${1:-}" in --*) ;; *) python3 docs/generate/make_attribution_auc.py "$@" ;; esac
exec python3 docs/generate/make_results.py "$@"
