"""Benchmark the LLM judge: throughput, concurrency/batching, and a cached rerun.

Run from the repository root:  python bench/bench_llm_judge.py [SENTENCES]
(default 200 CoNLL-2014 sentences x 13 systems: 12 teams + INPUT, from
--data-dir, else $GECMETRICS_SHARED_DATA, else ../shared/data). No real LLM is
reachable here, so:

* endpoint: the tests' stub OpenAI-compatible server on 127.0.0.1
  (tests/llm_stub.py) with 20 ms added per answer, standing in for a remote
  service; workers=1 (the baseline) vs workers=8;
* local: the tests' tiny GPT-2 of known output on CPU (needs torch and
  transformers); batch_size=1 (the baseline) vs batch_size=8;
* each followed by a rerun with a new metric object on a new corpus, which must
  send no request / run no generate call (checked, and printed).

Prints wall time, sentences per second, prompts asked, peak memory (tracemalloc,
Python allocations only) and the speed-up over the baseline of the same run.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import harness

sys.path.insert(0, str(harness.ROOT / "tests"))

from llm_stub import Stub, build_model  # noqa: E402

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.metrics.llm_judge import LlmJudge  # noqa: E402


def corpus(data: Path, n: int) -> Corpus:
    m2, hyps = harness.conll14(data, sentences=n)
    sources = list(m2.sources)
    return Corpus.build(sources, [sources], {**hyps, "INPUT": sources})


def judged(metric: LlmJudge, data: Path, n: int) -> harness.Timing[list]:
    """One traced run (a rerun would read the cache this one fills)."""
    return harness.measure(lambda: [r.scores for r in metric.evaluate(corpus(data, n),
                                                                       level="sentence")],
                           memory="traced")


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("sentences", type=int, nargs="?", default=200)
    args = ap.parse_args()
    n = args.sentences
    data = harness.shared_data(args.data_dir)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GECMETRICS_CACHE"] = str(Path(tmp) / "cache")
        print(f"{n} CoNLL-2014 sentences x 13 systems")
        table = harness.Table("sent/s", "asked", width=34)
        with Stub() as stub:
            stub.latency = 0.02
            runs = {}
            for workers in (1, 8):
                os.environ["GECMETRICS_CACHE"] = str(Path(tmp) / f"cache-w{workers}")
                before = len(stub.requests)
                metric = LlmJudge(model="stub", base_url=stub.base_url, workers=workers)
                timing = judged(metric, data, n)
                asked = len(stub.requests) - before
                show = table.baseline if workers == 1 else table.row
                show(f"endpoint (20 ms), workers={workers}", timing,
                     f"{n / timing.seconds:.1f}", str(asked))
                runs[workers] = timing.value
            assert runs[1] == runs[8], "workers changed the scores"
            before = len(stub.requests)
            timing = judged(LlmJudge(model="stub", base_url=stub.base_url, workers=8), data, n)
            asked = len(stub.requests) - before
            table.row("endpoint rerun (cache)", timing, f"{n / timing.seconds:.1f}", str(asked))
            assert asked == 0 and timing.value == runs[8], "the rerun asked the endpoint"
        try:
            import torch  # noqa: F401
        except ImportError:
            print("local backend: skipped (no torch)")
            return
        build_model(Path(tmp) / "model")
        table = harness.Table("prompts/s", "generate calls", width=34, peak=False)

        def answers(metric: LlmJudge) -> list:
            # raw answers only: the tiny model answers two scores whatever it is asked
            prompts = [p for _, g, p in metric.prompts(corpus(data, n))]
            return metric.answers(prompts, ["bench"] * len(prompts))

        runs = {}
        for batch in (1, 8):
            os.environ["GECMETRICS_CACHE"] = str(Path(tmp) / f"cache-b{batch}")
            metric = LlmJudge(backend="transformers", model=str(Path(tmp) / "model"),
                              device="cpu", max_tokens=8, batch_size=batch)
            prompts = len(metric.prompts(corpus(data, n)))
            timing = harness.measure(lambda m=metric: answers(m))
            show = table.baseline if batch == 1 else table.row
            show(f"local tiny GPT-2, batch_size={batch}", timing,
                 f"{prompts / timing.seconds:.1f}", str(metric.backend.calls))
            runs[batch] = timing.value
        assert runs[1] == runs[8], "batching changed the answers"
        again = LlmJudge(backend="transformers", model=str(Path(tmp) / "model"), device="cpu",
                         max_tokens=8, batch_size=8)
        table.row("local rerun (cache)", harness.measure(lambda: answers(again)), "",
                  str(again.backend.calls))
        assert again.backend.calls == 0, "the rerun ran the model"


if __name__ == "__main__":
    main()
