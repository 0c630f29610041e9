"""The LLM judge against a stub OpenAI-compatible server on 127.0.0.1.

The stub (tests/llm_stub.py) rates each target 1 + len(target) % 5, so every
expected score here is that rule, computed in the test, mapped to (s - 1) / 4.
Covered: the exact prompt and request sent, grouping of distinct hypotheses,
sentence/mean/corpus levels, retries (429, 500, a malformed body, a timeout, a
closed port), errors that retrying cannot fix, unparsable answers, the disk
cache (a rerun sends no request) and option checks before any work.
"""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest
from click.testing import CliRunner
from llm_stub import Stub, rule

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError, GecMetricsError
from gecmetrics.interface.cli import main
from gecmetrics.metrics.llm_backends import EndpointError
from gecmetrics.metrics.llm_judge import LlmJudge
from gecmetrics.metrics.llm_prompts import UnparsableAnswer, build_prompt, parse_answer
from gecmetrics.registry import metric_from_spec

SOURCES = ["He go to school .", "She like apple .", "It is fine ."]
HYPS = {
    "a": ["He goes to school .", "She likes apples .", "It is fine ."],
    "b": ["He went to school .", "She like apple .", "It is fine ."],
    "c": ["He goes to school .", "She likes an apple .", "It is fine !"],
}
KEY = "sk-test-secret-0123456789"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LLM_TEST_KEY", KEY)


@pytest.fixture
def stub():
    with Stub() as server:
        yield server


def corpus() -> Corpus:
    return Corpus.build(SOURCES, [SOURCES], HYPS)


def judge(stub: Stub, **options) -> LlmJudge:
    opts = {"model": "stub-model", "base_url": stub.base_url, "api_key_env": "LLM_TEST_KEY",
            "backoff": 0.0, "retries": 3, "timeout": 5.0, **options}
    return LlmJudge(**opts)


def expected() -> np.ndarray:
    return np.array([[(rule(h) - 1) / 4 for h in HYPS[s]] for s in HYPS])


def test_prompt_text_is_exactly_the_documented_one():
    prompt = build_prompt("He go .", ["He goes .", "He went ."], "fluency")
    assert prompt == (
        "Your task is to rank corrections of a sentence by their quality.\n"
        "Read the source sentence and the corrected sentences (targets), then give every "
        "target a score from 1 (worst) to 5 (best) for the quality of the corrected "
        "sentence. Two or more targets may get the same score.\n"
        "Judge the targets above all by how fluent and natural they read.\n"
        "\n# source\nHe go .\n\n# targets\ntarget1: He goes .\ntarget2: He went .\n"
        "\n# output format\n"
        'Answer with a markdown code block that holds only this JSON object, starting with '
        '"```json" and ending with "```":\n'
        '```json\n{"target1_score": <integer 1-5>, "target2_score": <integer 1-5>}\n```\n')


def test_scores_requests_and_levels(stub):
    metric = judge(stub)
    c = corpus()
    sent = metric.evaluate(c, level="sentence")
    got = np.array([r.scores for r in sent])
    np.testing.assert_array_equal(got, expected())
    means = [r.score for r in metric.evaluate(c, level="mean")]
    corp = metric.evaluate(c, level="corpus")
    np.testing.assert_allclose(means, expected().mean(axis=1), rtol=0, atol=1e-15)
    np.testing.assert_allclose([r.score for r in corp], expected().mean(axis=1), atol=1e-15)
    assert corp[0].details["mean_judgement"] == pytest.approx(
        np.mean([rule(h) for h in HYPS["a"]]))
    # one prompt per sentence: the distinct hypotheses, sorted, as targets
    assert len(stub.requests) == 3
    assert stub.prompts()[0] == build_prompt(SOURCES[0], sorted(
        {"He goes to school .", "He went to school ."}))
    assert stub.prompts()[2] == build_prompt(SOURCES[2], ["It is fine !", "It is fine ."])
    body, headers = stub.requests[0], stub.headers[0]
    assert body["model"] == "stub-model" and body["temperature"] == 0.0
    assert body["seed"] == 777 and body["messages"][0]["role"] == "user"
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert KEY not in metric.signature() and KEY not in metric.spec


def test_groups_of_at_most_group_size(stub):
    hyps = {f"s{i}": [f"variant {'x' * i} ."] for i in range(7)}
    c = Corpus.build(["variant ."], [["variant ."]], hyps)
    metric = judge(stub, group_size=3)
    scores = metric.evaluate(c, level="sentence")
    assert [p.count("\ntarget") for p in stub.prompts()] == [3, 3, 1]
    for res in scores:
        assert res.scores == [(rule(hyps[res.hypothesis][0]) - 1) / 4]


def test_rerun_asks_the_model_nothing(stub):
    first = judge(stub).evaluate(corpus(), level="sentence")
    asked = len(stub.requests)
    assert asked == 3
    again_metric = judge(stub)
    again = again_metric.evaluate(corpus(), level="sentence")  # new metric, new corpus
    assert len(stub.requests) == asked and again_metric.backend.calls == 0
    assert [r.scores for r in again] == [r.scores for r in first]
    # another criterion is another prompt: asked again; cache=false never reads the cache
    judge(stub, criterion="meaning").evaluate(corpus())
    assert len(stub.requests) == 2 * asked
    judge(stub, cache=False).evaluate(corpus())
    assert len(stub.requests) == 3 * asked


def test_retries_429_500_malformed_then_success(stub):
    stub.faults += [("status", 429), ("status", 500), ("raw", b"<html>bad gateway</html>")]
    metric = judge(stub)
    got = np.array([r.scores for r in metric.evaluate(corpus(), level="sentence")])
    np.testing.assert_array_equal(got, expected())
    assert metric.backend.calls == 3 + 3


def test_backoff_doubles_and_retry_after_wins_when_longer(stub):
    stub.faults += [("status", 500), ("status", 502), ("retry-after", "7"),
                    ("retry-after", "999"), ("status", 429)]
    metric = judge(stub, backoff=0.5, retries=5)
    waits: list[float] = []
    metric.backend.sleep = waits.append
    metric.evaluate(corpus())
    # attempt k waits backoff * 2**k, or Retry-After when longer, at most 60 s;
    # the stub's plain 429 says Retry-After: 0
    assert waits == [0.5, 1.0, 7.0, 60.0, 8.0]


@pytest.mark.parametrize("workers", [1, 4])
def test_retries_are_bounded_then_one_line(stub, workers):
    stub.faults += [("status", 503)] * 20
    metric = judge(stub, retries=2, workers=workers)
    with pytest.raises(EndpointError) as err:
        metric.evaluate(corpus())
    msg = str(err.value)
    assert "\n" not in msg and "failed 3 times" in msg and "HTTP 503" in msg
    assert "sentence" in msg
    if workers == 1:  # the first sentence failed for good: the others were never asked
        assert "sentence 1" in msg and len(stub.requests) == 3
    else:
        assert len(stub.requests) <= 3 * 3


def test_timeout_is_retried(stub):
    stub.faults += [("sleep", 1.5)]
    metric = judge(stub, timeout=0.5)
    got = np.array([r.scores for r in metric.evaluate(corpus(), level="sentence")])
    np.testing.assert_array_equal(got, expected())
    assert metric.backend.calls == 4


def closed_port() -> int:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_closed_port_fails_at_once_with_the_address():
    """Nothing listening (a server not started, a wrong port): no retries (the
    defaults, 5 retries from 1 s, took 31.8 s in silence), one line naming the
    address and the option to fix."""
    import time

    url = f"http://127.0.0.1:{closed_port()}/v1"
    metric = LlmJudge(model="m", base_url=url, cache=False)  # retries=5, backoff=1.0
    start = time.monotonic()
    with pytest.raises(EndpointError) as err:
        metric.evaluate(corpus())
    assert time.monotonic() - start < 2
    assert str(err.value) == (f"llm-judge: nothing is listening at {url} (connection "
                              "refused); start the server there, or give its address with "
                              "the option base_url=URL")
    assert metric.backend.calls == 1


def test_connection_refused_after_an_answer_is_retried_then_one_line():
    """A server that answered before and then refuses (restarting) is retried."""
    metric = LlmJudge(model="m", base_url=f"http://127.0.0.1:{closed_port()}/v1",
                      backoff=0.0, retries=1, cache=False)
    notes: list[str] = []
    metric.backend.notify = notes.append
    metric.backend.answered.set()
    with pytest.raises(EndpointError, match="failed 2 times") as err:
        metric.evaluate(corpus())
    assert "\n" not in str(err.value)
    assert len(notes) == 1 and "retry 1 of 1" in notes[0] and "Connection refused" in notes[0]


def test_each_retry_is_announced_with_the_address_and_attempt(stub):
    stub.faults += [("status", 503), ("status", 500)]
    metric = judge(stub, retries=3, backoff=0.25)
    notes: list[str] = []
    metric.backend.notify = notes.append
    metric.backend.sleep = lambda seconds: None
    metric.evaluate(corpus())
    url = stub.base_url + "/chat/completions"
    assert [n.split(" (")[0] for n in notes] == [f"note: llm-judge: {url} failed"] * 2
    assert "HTTP 503" in notes[0] and notes[0].endswith("retry 1 of 3 in 0.25 s")
    assert "HTTP 500" in notes[1] and notes[1].endswith("retry 2 of 3 in 0.5 s")


@pytest.mark.parametrize("code, hint", [(401, "LLM_TEST_KEY"), (404, "check base_url"),
                                        (400, "check the options")])
def test_client_errors_are_not_retried(stub, code, hint):
    stub.faults += [("status", code)]
    with pytest.raises(EndpointError) as err:
        judge(stub).evaluate(corpus())
    msg = str(err.value)
    assert f"HTTP {code}" in msg and hint in msg and "\n" not in msg and KEY not in msg
    assert len(stub.requests) == 1


def test_unparsable_answer_fails_loudly_and_names_the_sentence(stub):
    stub.faults += [("answer", "I think target 1 is a 4 and target 2 a 3.")]
    with pytest.raises(UnparsableAnswer) as err:
        judge(stub).evaluate(corpus())
    msg = str(err.value)
    assert "\n" not in msg and "sentence 1" in msg and "He go to school" in msg
    assert "target 1 is a 4" in msg and '"target1_score", "target2_score"' in msg
    assert isinstance(err.value, GecMetricsError)


def test_unusable_model_stops_after_one_batch(stub):
    """The answers of a batch are parsed when they arrive: the rest is never asked."""
    sources = [f"Sentence number {i} ." for i in range(80)]
    c = Corpus.build(sources, [sources], {"a": sources})
    stub.faults += [("answer", "no idea")]
    with pytest.raises(UnparsableAnswer, match="sentence 1 "):
        judge(stub).evaluate(c)
    assert len(stub.requests) == 32  # one batch of the 80 prompts


@pytest.mark.parametrize("answer, scores", [
    ('```json\n{"target1_score": 4, "target2_score": 2}\n```', [4, 2]),
    ('Sure. {"target1_score": 5, "target2_score": 1} Hope it helps.', [5, 1]),
    ('{"target_score1": 3, "target_score2": 3}', [3, 3]),  # gec-metrics' field names
    ('```json\n{"target1_score": 4.0, "target2_score": "2"}\n```', [4, 2]),
    ('```\n{"oops": 1}\n```\n```json\n{"target1_score": 1, "target2_score": 5}\n```', [1, 5]),
])
def test_parser_reads(answer, scores):
    assert parse_answer(answer, 2, "sentence 9") == scores


@pytest.mark.parametrize("answer", [
    '{"target1_score": 4}',  # a target missing
    '{"target1_score": 4, "target2_score": 6}',  # out of range
    '{"target1_score": 0, "target2_score": 2}',
    '{"target1_score": 4, "target2_score": 2.5}',
    '{"target1_score": true, "target2_score": 2}',
    '{"target1_score": 4, "target2_score": 2, "target3_score": 1}',  # a target not asked
    '{"target1_score": 4, "target2_score": 2',  # cut off
    "",
])
def test_parser_refuses(answer):
    with pytest.raises(UnparsableAnswer, match="sentence 9"):
        parse_answer(answer, 2, "sentence 9")


@pytest.mark.parametrize("spec, needle", [
    ("llm-judge", "needs model=NAME"),
    ("llm-judge:model=m,api_key=sk-abc", "takes no API key"),
    ("llm-judge:model=m,api_key_env=sk-proj-abcdefghijklmnopqrstuvwxyz", "not the key itself"),
    ("llm-judge:model=m,base_url=localhost:8000", "must be an http://"),
    ("llm-judge:model=m,criterion=style", "criterion='style'"),
    ("llm-judge:model=m,backend=vllm", "choose openai"),
    ("llm-judge:model=m,group_size=0", "group_size must be an integer >= 1"),
    ("llm-judge:model=m,retries=-1", "retries must be an integer >= 0"),
    ("llm-judge:model=m,device=tpu", "device='tpu'"),
    ("llm-judge:model=m,form=words", "form='words'"),
])
def test_options_checked_when_made(spec, needle):
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace("+", r"\+")):
        metric_from_spec(spec)


def test_cli_refuses_bad_options_before_reading_files(tmp_path):
    out = CliRunner().invoke(main, ["score", "-m", "llm-judge:model=m,api_key=sk-abc",
                                    "-s", str(tmp_path / "missing"), "-r", str(tmp_path / "x"),
                                    "-c", str(tmp_path / "y")])
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "API key" in lines[0]


def test_cli_scores_through_the_endpoint(stub, tmp_path):
    paths = {}
    for name, lines in {"src": SOURCES, **HYPS}.items():
        paths[name] = tmp_path / name
        paths[name].write_text("\n".join(lines) + "\n")
    spec = f"llm-judge:model=stub-model,base_url={stub.base_url},api_key_env=LLM_TEST_KEY"
    out = CliRunner().invoke(main, ["score", "-m", spec, "-s", str(paths["src"]),
                                    "-r", str(paths["src"]), "-c", str(paths["a"]),
                                    str(paths["b"]), "--level", "sentence", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [d["scores"] for d in data] == expected()[:2].tolist()
    assert all(KEY not in d["signature"] for d in data)



def _meta(stub, shared_data):
    import gecmetrics

    levels = gecmetrics.meta_evaluate(["seeda-s"], [judge(stub, workers=4)],
                                      levels=["corpus", "ew", "trueskill"],
                                      data_dir=str(shared_data))
    pairs = gecmetrics.meta_evaluate(["seeda-s"], [judge(stub, workers=4)],
                                     sentence_level=True, data_dir=str(shared_data))
    return levels, pairs


@pytest.mark.full
def test_meta_evaluation_every_level_and_a_rerun_asks_nothing(stub, shared_data):
    """SEEDA-S: system level from the mean (checked with scipy), ew/trueskill, sentence pairs."""
    from scipy import stats

    levels, pairs = _meta(stub, shared_data)
    asked = len(stub.requests)
    assert asked > 0
    sel = levels.selections[0]
    corpus_ = sel.benchmark.corpus
    by_system = {s: np.mean([(rule(h) - 1) / 4 for h in corpus_.hypotheses[s]])
                 for s in corpus_.hypotheses}
    scores = np.array([by_system[s] for s in sel.systems])
    rows = levels.to_json()
    row = next(r for r in rows if r.get("level") == "corpus")
    assert row["pearson"] == pytest.approx(stats.pearsonr(scores, sel.human)[0], abs=1e-12)
    assert row["kendall"] == pytest.approx(stats.kendalltau(scores, sel.human)[0], abs=1e-12)
    assert {r.get("level") for r in rows} == {"corpus", "ew", "trueskill"}
    pair_rows = pairs.to_json()
    assert pair_rows and all(KEY not in json.dumps(r) for r in rows + pair_rows)
    assert all("signature" in r for r in rows + pair_rows)
    again_levels, again_pairs = _meta(stub, shared_data)
    assert len(stub.requests) == asked  # the rerun asked the model nothing
    assert again_levels.to_json() == rows and again_pairs.to_json() == pair_rows


def test_help_and_list_import_neither_torch_nor_the_judge():
    import subprocess
    import sys

    code = ("import sys; from gecmetrics.interface.cli import main\n"
            "for args in (['--help'], ['list']):\n"
            "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
            "print(sorted(m for m in ('torch', 'transformers', 'urllib.request') "
            "if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "llm-judge" in proc.stdout and proc.stdout.strip().endswith("[]"), proc.stdout


def test_sentence_statistics_give_the_corpus_score(stub):
    """Paired tests resample sentence statistics: their summed formula must be the mean."""
    stats_ = judge(stub).statistics(corpus())
    sent_stats, formula = stats_.sentence_statistics(None)
    np.testing.assert_allclose(formula(sent_stats.sum(axis=1)), expected().mean(axis=1),
                               rtol=0, atol=1e-15)
    subset = np.array([0, 2, 2])
    np.testing.assert_allclose(stats_.corpus_scores(None, subset),
                               expected()[:, subset].mean(axis=1), rtol=0, atol=1e-15)


def test_edit_form_shows_errant_edits(stub):
    """LLM-E: targets as ERRANT edits, written by hand here for three simple pairs."""
    from conftest import require_extra

    require_extra("errant")
    sources = ["He go to school .", "It is is fine ."]
    hyps = {"a": ["He goes to the school .", "It is fine ."],
            "b": ["He go to school .", "It is is fine ."]}
    c = Corpus.build(sources, [sources], hyps)
    metric = judge(stub, form="edits", criterion="impact")
    got = {r.hypothesis: r.scores for r in metric.evaluate(c, level="sentence")}
    shown = {"He goes to the school .": "[go→goes] [→the]", "It is fine .": "[is→]",
             "He go to school .": "(no edits)", "It is is fine .": "(no edits)"}
    assert stub.prompts() == [
        build_prompt(sources[0], [shown["He go to school ."], shown["He goes to the school ."]],
                     "impact", "edits"),
        build_prompt(sources[1], [shown["It is fine ."], shown["It is is fine ."]],
                     "impact", "edits")]
    assert "[old→new] replaces old with new" in stub.prompts()[0]
    for name, lines in hyps.items():
        assert got[name] == [(rule(shown[h]) - 1) / 4 for h in lines]


def test_cli_paired_tests_run_on_cached_answers(stub, tmp_path):
    """--paired-ar resamples the sentence statistics: no more requests than one scoring."""
    paths = {}
    for name, lines in {"src": SOURCES, **HYPS}.items():
        paths[name] = tmp_path / name
        paths[name].write_text("\n".join(lines) + "\n")
    spec = f"llm-judge:model=stub-model,base_url={stub.base_url}"
    base = ["score", "-m", spec, "-s", str(paths["src"]), "-r", str(paths["src"]),
            "-c", str(paths["a"]), str(paths["b"]), str(paths["c"]), "--format", "json"]
    for flag in ("--paired-ar", "--paired-bootstrap"):
        out = CliRunner().invoke(main, [*base, flag, "200"])
        assert out.exit_code == 0, out.output
        rows = json.loads(out.output)
        assert [r["score"] for r in rows] == pytest.approx(expected().mean(axis=1), abs=1e-15)
        assert all("signature" in r for r in rows)
    assert len(stub.requests) == 3  # asked once; the second run read the cache
