"""Edit-level attribution: subset sentences scored in corpus passes against one by one.

Run from the repository root:  python bench/bench_attribution.py [--sentences 200]
[--systems AMU CAMB] [--metric green] [--naive 40]

Both sides attribute exact Shapley values to the ERRANT edits of the first
``--sentences`` CoNLL-2014 lines of each system (edits extracted beforehand,
not timed). Baseline ("naive"): every subset sentence and the source scored
as its own one-sentence corpus through the metric (what a loop over
gec-attribute's attributor does: one metric call per subset), on the first
``--naive`` sentences only, scaled per subset sentence to the whole set.
Measured: :func:`gecmetrics.workflows.attribution.attribute` on all of them (every
distinct candidate scored once, in one corpus pass). Printed: seconds, the
speed-up over the naive rate, how many subset sentences were asked for and
how many distinct ones scored, and the load average.
"""

from __future__ import annotations

import os

import harness


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--systems", nargs="+", default=["AMU", "CAMB"])
    parser.add_argument("--metric", default="green")
    parser.add_argument("--naive", type=int, default=40)
    opts = parser.parse_args()
    data = harness.shared_data(opts.data_dir)

    from gecmetrics.corpus import Corpus
    from gecmetrics.registry import metric_from_spec
    from gecmetrics.workflows.attribution import (
        AttributionOptions,
        apply_edits,
        attribute,
        hypothesis_edits,
        plan_sentence,
    )

    m2, hyps = harness.conll14(data, opts.systems, opts.sentences)
    refs = m2.references()
    corpus = Corpus(m2.sources, refs, hyps)
    edits = hypothesis_edits(corpus)
    metric = metric_from_spec(opts.metric)
    options = AttributionOptions("shapley")
    print(f"load average {os.getloadavg()[0]:.2f}; {len(opts.systems)} systems x "
          f"{opts.sentences} sentences; {opts.metric}")

    def naive() -> int:
        calls = 0
        for name, lines in list(corpus.hypotheses.items()):
            for d in range(min(opts.naive, len(lines))):
                tokens = corpus.sources[d].split()
                plan = plan_sentence(name, d, edits[name][d], options, [])

                def one(text: str, d: int = d) -> float:
                    c = Corpus([corpus.sources[d]], [[r[d]] for r in refs], {"x": [text]})
                    return float(metric.statistics(c).sentence(None)[0][0])

                one(corpus.sources[d])
                one(lines[d])
                calls += 2
                for s in plan.subsets():
                    one(apply_edits(tokens, [plan.edits[i] for i in s]))
                    calls += 1
        return calls

    table = harness.Table("requested", "scored", peak=False)
    base = harness.measure(naive)
    calls = base.value
    batched = harness.measure(lambda: attribute(metric, corpus, options, edits))
    res = batched.value
    per_call = base.seconds / calls
    table.alone(f"naive: first {opts.naive} sentences, one corpus each", base, str(calls),
                str(calls))
    table.baseline("naive rate x all subset sentences", per_call * res.requested,
                   str(res.requested), str(res.requested))
    table.row("attribute(): distinct candidates, one pass", batched, str(res.requested),
              str(res.scored))

if __name__ == "__main__":
    main()
