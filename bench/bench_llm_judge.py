"""Benchmark the LLM judge: throughput, concurrency/batching, and a cached rerun.

Run from the repository root:  python bench/bench_llm_judge.py [SENTENCES]
(default 200 CoNLL-2014 sentences x 13 systems: 12 teams + INPUT, from
../shared/data). No real LLM is reachable here, so:

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
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from llm_stub import Stub, build_model  # noqa: E402

from gecmetrics.corpus import Corpus  # noqa: E402
from gecmetrics.metrics.llm_judge import LlmJudge  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "IPN", "NTHU", "PKU", "POST", "RAC", "SJTU", "UFC", "UMC"]


def corpus(n: int) -> Corpus:
    m2 = DATA / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    sources = [line[2:] for line in m2.read_text(encoding="utf-8").splitlines()
               if line.startswith("S ")][:n]
    hyps = {t: (DATA / "official_submissions" / t).read_text(encoding="utf-8").split("\n")[:n]
            for t in TEAMS}
    hyps["INPUT"] = sources
    return Corpus.build(sources, [sources], hyps)


def timed(metric: LlmJudge, n: int) -> tuple[float, int, list]:
    tracemalloc.start()
    start = time.perf_counter()
    result = metric.evaluate(corpus(n), level="sentence")
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, [r.scores for r in result]


def report(label: str, seconds: float, peak: int, n: int, asked: int, base: float) -> None:
    print(f"{label:<34} {seconds:8.2f} s {n / seconds:9.1f} sent/s  asked {asked:5d}  "
          f"peak {peak / 2**20:6.1f} MiB  x{base / seconds:7.1f} vs baseline")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["GECMETRICS_CACHE"] = str(Path(tmp) / "cache")
        print(f"{n} CoNLL-2014 sentences x 13 systems")
        with Stub() as stub:
            stub.latency = 0.02
            runs = {}
            for workers in (1, 8):
                os.environ["GECMETRICS_CACHE"] = str(Path(tmp) / f"cache-w{workers}")
                before = len(stub.requests)
                metric = LlmJudge(model="stub", base_url=stub.base_url, workers=workers)
                seconds, peak, scores = timed(metric, n)
                runs[workers] = (seconds, peak, len(stub.requests) - before, scores)
            base = runs[1][0]
            for workers, (seconds, peak, asked, _) in runs.items():
                report(f"endpoint (20 ms), workers={workers}", seconds, peak, n, asked, base)
            assert runs[1][3] == runs[8][3], "workers changed the scores"
            before = len(stub.requests)
            seconds, peak, scores = timed(LlmJudge(model="stub", base_url=stub.base_url,
                                                   workers=8), n)
            asked = len(stub.requests) - before
            report("endpoint rerun (cache)", seconds, peak, n, asked, base)
            assert asked == 0 and scores == runs[8][3], "the rerun asked the endpoint"
        try:
            import torch  # noqa: F401
        except ImportError:
            print("local backend: skipped (no torch)")
            return
        build_model(Path(tmp) / "model")
        runs = {}
        for batch in (1, 8):
            os.environ["GECMETRICS_CACHE"] = str(Path(tmp) / f"cache-b{batch}")
            metric = LlmJudge(backend="transformers", model=str(Path(tmp) / "model"),
                              device="cpu", max_tokens=8, batch_size=batch)
            prompts = len(metric.prompts(corpus(n)))
            # raw answers only: the tiny model answers two scores whatever it is asked
            start = time.perf_counter()
            answers = metric.answers([p for _, g, p in metric.prompts(corpus(n))],
                                     ["bench"] * prompts)
            seconds = time.perf_counter() - start
            runs[batch] = (seconds, metric.backend.calls, answers)
        base = runs[1][0]
        for batch, (seconds, calls, _) in runs.items():
            print(f"{'local tiny GPT-2, batch_size=' + str(batch):<34} {seconds:8.2f} s "
                  f"{prompts / seconds:9.1f} prompts/s  generate calls {calls:4d}  "
                  f"x{base / seconds:7.1f} vs baseline")
        assert runs[1][2] == runs[8][2], "batching changed the answers"
        again = LlmJudge(backend="transformers", model=str(Path(tmp) / "model"), device="cpu",
                         max_tokens=8, batch_size=8)
        start = time.perf_counter()
        again.answers([p for _, g, p in again.prompts(corpus(n))], ["bench"] * prompts)
        seconds = time.perf_counter() - start
        print(f"{'local rerun (cache)':<34} {seconds:8.2f} s  generate calls "
              f"{again.backend.calls}")
        assert again.backend.calls == 0, "the rerun ran the model"


if __name__ == "__main__":
    main()
