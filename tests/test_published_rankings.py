"""Published system rankings and correlations of Napoles et al. (2016, "GLEU
Without Tuning") and Sakaguchi et al. (2016), held against our statistics, our
metrics and our human scores.

Independent routes: the figures are transcribed in data/published/ with their
citations; the rankings are compared position by position, and the
correlations are recomputed from published numbers (the paper's own rankings,
the repository's own metric_scores file) with our correlation code, so a wrong
statistic or a wrong human score would show. Where our metric scores differ
from the papers', the test states what agrees and docs/benchmarks.md explains
the rest.
"""

from __future__ import annotations

import pytest

from gecmetrics.meta_eval.benchmarks import load_benchmark
from gecmetrics.published import load
from gecmetrics.registry import metric_from_spec
from gecmetrics.stats.correlation import pearson, spearman

NAPOLES16 = load("napoles16-gleu-without-tuning").values
SAKAGUCHI16 = load("sakaguchi16-abstract").values


def _ours(name: str) -> str:
    return "INPUT" if name == "source" else name


def _positions(ranking: list[str], order: list[str]) -> list[float]:
    """Higher is better: minus the place of each system of ``order`` in ``ranking``."""
    return [-float(ranking.index(s)) for s in order]


@pytest.mark.parametrize("metric", ["M2", "GLEU0", "GLEU+"])
def test_napoles16_rho_is_the_rank_correlation_of_table1(metric):
    """Table 2's rho of M2, GLEU0 and GLEU+ is Spearman between Table 1's rankings,
    and the text's average displacement is the mean |place difference|."""
    human = NAPOLES16["table1"]["human"]
    ranking = NAPOLES16["table1"][metric]
    assert sorted(ranking) == sorted(human)
    rho = spearman(_positions(ranking, human), _positions(human, human))
    assert round(rho, 3) == NAPOLES16["table2"][metric]["rho"]
    displacement = sum(abs(ranking.index(s) - human.index(s)) for s in human) / len(human)
    assert round(displacement, 1) == NAPOLES16["displacement"][metric]


def _corpus_scores(bench, spec: str) -> dict[str, float]:
    systems = set(bench.systems("all"))
    results = metric_from_spec(spec).evaluate(bench.corpus)
    scores = {r.hypothesis: r.score for r in results if r.hypothesis in systems}
    assert len(scores) == len(systems) and None not in scores.values()
    return scores  # type: ignore[return-value]


def test_napoles16_gleu_plus_ranking_against_ours(shared_data):
    """Our GLEU+ (`gleu`, the 2016 code's formula and sampling) on the NUCLE references
    ranks the 13 as Table 1's GLEU+ column at the top (CAMB, CUUI, AMU) and the bottom
    (IITB, source, RAC, IPN); the middle six lie within 0.01 of each other in our scores
    and come in another order (docs/benchmarks.md)."""
    bench = load_benchmark("conll14", shared_data)
    scores = _corpus_scores(bench, "gleu")
    ours = sorted(scores, key=lambda s: -scores[s])
    theirs = [_ours(s) for s in NAPOLES16["table1"]["GLEU+"]]
    assert ours[:3] == theirs[:3]
    assert ours[-4:] == theirs[-4:]
    middle = [scores[s] for s in ours[3:9]]
    assert max(middle) - min(middle) < 0.01
    assert spearman([scores[s] for s in theirs], _positions(theirs, theirs)) > 0.9


@pytest.mark.full
def test_napoles16_m2_column_is_not_the_no_alternatives_scorer(shared_data):
    """Table 1's M2 column puts CUUI first; the official M2 file (no alternative answers),
    which we score exactly as the CoNLL-2014 overview, puts CAMB first. The column
    orders the systems as the scores with the teams' alternative answers do, which are
    not public: documented, not reproducible here."""
    bench = load_benchmark("conll14", shared_data)
    scores = _corpus_scores(bench, "m2")
    ours = sorted(scores, key=lambda s: -scores[s])
    assert ours[0] == "CAMB" and NAPOLES16["table1"]["M2"][0] == "CUUI"
    assert ours[-1] == "INPUT" and NAPOLES16["table1"]["M2"][-1] == "source"


def test_napoles15_human_ranking_against_ours(shared_data):
    """Our napoles15-ts (mean of 10 seeded TrueSkill runs of the same judgments) orders
    the 13 as Table 1's human column at the top three (CAMB, AMU, RAC), with Spearman
    above 0.9 over all 13; single Python 2 runs cannot be replayed (docs/benchmarks.md)."""
    bench = load_benchmark("conll14", shared_data)
    systems = bench.systems("all")
    ts = dict(zip(systems, bench.human_scores("napoles15-ts", systems), strict=True))
    human = [_ours(s) for s in NAPOLES16["table1"]["human"]]
    assert sorted(ts, key=lambda s: -ts[s])[:3] == human[:3]
    assert spearman([ts[s] for s in human], _positions(human, human)) > 0.9


def test_sakaguchi16_abstract_rho_from_the_papers_metric_scores(shared_data):
    """The abstract's rho = 0.82 is GLEU with the expert fluency references (the
    repository's metric_scores) against GJG15's TrueSkill (our `ts` human scores)
    over the 12 systems and the source."""
    scores: dict[str, float] = {}
    path = shared_data / "reassess-gec" / "metric_scores"
    for line in path.read_text(encoding="utf-8").splitlines():
        metric, refs, system, value = line.split("\t")
        if (metric, refs) == (SAKAGUCHI16["metric"], SAKAGUCHI16["references"]):
            scores[_ours(system)] = float(value)
    bench = load_benchmark("conll14", shared_data)
    systems = bench.systems("all")
    assert sorted(scores) == sorted(systems) and len(systems) == SAKAGUCHI16["systems"]
    human = bench.human_scores("ts", systems)
    rho = spearman([scores[s] for s in systems], human)
    assert round(rho, 2) == SAKAGUCHI16["rho"]
    # The same file's GLEU against the 100-run expert mean gives less (0.81): the
    # abstract's "expert ranking" is GJG15's published TrueSkill.
    expert = bench.human_scores("sakaguchi16-expert", systems)
    assert round(spearman([scores[s] for s in systems], expert), 2) != SAKAGUCHI16["rho"]
    assert pearson([scores[s] for s in systems], human) > 0.7
