"""The LLM judge's transformers backend with a tiny local causal LM of known output.

No model hub is reachable, and a random model answers gibberish, so the test
builds a 2-layer GPT-2 whose greedy output is known by construction: every
block's output projections are zero (the residual stream is the token
embedding alone), position embeddings are zero, token embeddings are one-hot,
and the LM head maps each token to the next one of a fixed chain. Whatever the
prompt, the model then answers ``{"target1_score": 4, "target2_score": 2}``
and stops: the test checks the text actually given to the model (the prompt,
or the chat template applied to it), the parsed scores, batching, and that a
rerun runs no generation.
"""

from __future__ import annotations

import pytest
from llm_stub import build_model

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.metrics.llm_judge import LlmJudge
from gecmetrics.metrics.llm_prompts import UnparsableAnswer, build_prompt

pytestmark = pytest.mark.neural  # skips without the extra (fails in CI: conftest)

SOURCES = ["He go to school .", "She like apple ."]
HYPS = {
    "a": ["He goes to school .", "She likes apples ."],
    "b": ["He went to school .", "She likes apples ."],
    "c": ["He went to school .", "She like apple ."],
}


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no hub here: fail at once, not after timeouts


def metric(folder, **options) -> LlmJudge:
    return LlmJudge(backend="transformers", model=str(folder), device="cpu", max_tokens=8,
                    **options)


@pytest.mark.full
@pytest.mark.parametrize("batch_size", [1, 2])
def test_local_model_prompt_and_scores(tmp_path, batch_size):
    build_model(tmp_path / "m")
    judge = metric(tmp_path / "m", batch_size=batch_size)
    corpus = Corpus.build(SOURCES, [SOURCES], HYPS)
    got = judge.evaluate(corpus, level="sentence")
    # sorted targets: the first gets 4, the second 2 -> (4-1)/4 and (2-1)/4
    first = {"He goes to school .": 0.75, "He went to school .": 0.25,
             "She like apple .": 0.75, "She likes apples .": 0.25}
    for res in got:
        assert res.scores == [first[h] for h in HYPS[res.hypothesis]]
    assert judge.backend.sent == [
        build_prompt(SOURCES[0], ["He goes to school .", "He went to school ."]),
        build_prompt(SOURCES[1], ["She like apple .", "She likes apples ."])]
    assert judge.backend.calls == 2 // batch_size
    again = metric(tmp_path / "m", batch_size=batch_size)
    assert [r.scores for r in again.evaluate(Corpus.build(SOURCES, [SOURCES], HYPS),
                                             level="sentence")] == [r.scores for r in got]
    assert again.backend.calls == 0 and again.backend.sent == []


@pytest.mark.full
def test_chat_template_is_applied(tmp_path):
    template = ("{% for m in messages %}<{{ m['role'] }}> {{ m['content'] }} {% endfor %}"
                "{% if add_generation_prompt %}<assistant>{% endif %}")
    build_model(tmp_path / "m", chat_template=template)
    judge = metric(tmp_path / "m")
    corpus = Corpus.build(SOURCES[:1], [SOURCES[:1]], {k: v[:1] for k, v in HYPS.items()})
    got = judge.evaluate(corpus, level="sentence")
    assert [r.scores for r in got] == [[0.75], [0.25], [0.25]]
    prompt = build_prompt(SOURCES[0], ["He goes to school .", "He went to school ."])
    assert judge.backend.sent == [f"<user> {prompt} <assistant>"]


@pytest.mark.full
def test_a_model_that_answers_too_few_scores_fails_loudly(tmp_path):
    build_model(tmp_path / "m")
    corpus = Corpus.build(["x ."], [["x ."]], {"a": ["a ."], "b": ["b ."], "c": ["c ."]})
    with pytest.raises(UnparsableAnswer, match=r"sentence 1 \('x \.'\), 3 targets.*"
                                               "target3_score"):
        metric(tmp_path / "m").evaluate(corpus)


@pytest.mark.full
def test_another_model_folder_is_another_cache_entry(tmp_path):
    build_model(tmp_path / "m")
    build_model(tmp_path / "n", chat_template="{% for m in messages %}{{ m['content'] }}"
                                              "{% endfor %}")
    assert metric(tmp_path / "m").backend.identity() != metric(tmp_path / "n").backend.identity()
    assert metric(tmp_path / "m").backend.identity() == metric(tmp_path / "m").backend.identity()


def test_missing_model_is_one_line_before_any_work(tmp_path):
    with pytest.raises(ConfigError, match="no such folder") as err:
        metric(tmp_path / "nowhere")  # refused when made: no file read yet
    assert "\n" not in str(err.value)
    corpus = Corpus.build(SOURCES, [SOURCES], HYPS)
    with pytest.raises(ConfigError, match="not in the local Hugging Face cache") as err:
        metric("someone/not-cached-llm").evaluate(corpus)  # HF_HUB_OFFLINE=1: no hub
    assert "\n" not in str(err.value)
