"""gecmetrics.reward: rewards equal `gecmetrics score --level sentence` on the same
triples (the CLI run as a separate process, the oracle), whatever the batch split or
the cache; degenerate completions flagged with the documented reward; misconfiguration
one ConfigError at construction; the TRL and verl conventions; and (full tier, train
extra) two real GRPO steps whose logged rewards are checked against the CLI."""

from __future__ import annotations

import inspect
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gecmetrics.errors import ConfigError, InputError
from gecmetrics.reward import Reward, RewardOptions, TrlReward
from gecmetrics.reward import verl as verl_adapter

SCRIPT = str(Path(sys.executable).with_name("gecmetrics"))


def cli_sentence_scores(tmp_path: Path, specs, sources, references, hypotheses):
    """The CLI's sentence scores of the triples, {spec: scores} (or the one spec's
    scores), one reference count for all rows."""
    def write(name, lines):
        path = tmp_path / name
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return str(path)

    many = not isinstance(specs, str)
    refs = [write(f"ref{j}", [r[j] for r in references]) for j in range(len(references[0]))]
    metrics = [arg for spec in (specs if many else [specs]) for arg in ("-m", spec)]
    out = subprocess.run([SCRIPT, "score", *metrics, "-s", write("src", sources), "-r", *refs,
                          "-c", write("hyp", hypotheses), "--level", "sentence",
                          "--format", "json"], capture_output=True, text=True, check=True)
    rows = {row["spec"]: row["scores"] for row in json.loads(out.stdout)}
    return rows if many else rows[specs]


def group_batch(conll, sentences: int, per_source: int, seed: int = 0):
    """``per_source`` completions per source, drawn from the 12 CoNLL-2014 outputs."""
    sources, references, hyps = conll
    teams = sorted(t for t in hyps if t not in ("INPUT", "NULL"))
    rng = random.Random(seed)
    src, refs, comp = [], [], []
    for i in range(sentences):
        for _ in range(per_source):
            src.append(sources[i])
            refs.append([ref[i] for ref in references])
            comp.append(hyps[rng.choice(teams)][i])
    return src, refs, comp


SPECS = ("gleu", "chrf", "green", "bleu", "gleu:mode=max", "chrf:word_order=2",
         "m2:edits=neutral")


@pytest.fixture(scope="module")
def batch_and_cli(conll, tmp_path_factory):
    """25 CoNLL-2014 sources x 8 sampled outputs, and the CLI's scores of them (one run)."""
    src, refs, comp = group_batch(conll, 25, 8)
    return (src, refs, comp), cli_sentence_scores(tmp_path_factory.mktemp("cli"), SPECS,
                                                  src, refs, comp)


@pytest.mark.parametrize("spec", SPECS)
def test_rewards_equal_cli_sentence_scores(batch_and_cli, spec):
    (src, refs, comp), cli = batch_and_cli
    assert Reward(spec).score(src, comp, refs) == cli[spec]


@pytest.mark.full
@pytest.mark.errant
def test_errant_reward_equals_cli(conll, tmp_path):
    src, refs, comp = group_batch(conll, 12, 4)
    expected = cli_sentence_scores(tmp_path, "errant", src, refs, comp)
    assert Reward("errant").score(src, comp, refs) == expected


def test_weighted_sum_is_the_weighted_cli_scores(batch_and_cli):
    (src, refs, comp), cli = batch_and_cli
    got = Reward(["gleu", "chrf"], weights=[0.25, 0.75]).score(src, comp, refs)
    assert got == [0.0 + 0.25 * g + 0.75 * c for g, c in zip(cli["gleu"], cli["chrf"],
                                                               strict=True)]


def test_batch_split_and_cache_change_nothing(conll):
    src, refs, comp = group_batch(conll, 20, 8, seed=3)
    whole = Reward("gleu").score(src, comp, refs)
    split = Reward("gleu", options=RewardOptions(cache_size=0))
    pieces = [split.score(src[i:i + 7], comp[i:i + 7], refs[i:i + 7])
              for i in range(0, len(src), 7)]
    assert [x for piece in pieces for x in piece] == whole
    cached = Reward("gleu", options=RewardOptions(cache_size=5))  # evicts within a batch
    assert cached.score(src, comp, refs) == whole
    assert cached.score(src[::-1], comp[::-1], refs[::-1]) == whole[::-1]
    assert len(cached._cache) == 5


@pytest.mark.full
def test_varying_reference_counts_score_each_row_with_its_own(tmp_path):
    src = ["He go home .", "She like cats ."]
    refs = [["He goes home ."], ["She likes cats .", "She liked cats ."]]
    comp = ["He goes home .", "She likes cats ."]
    got = Reward("gleu").score(src, comp, refs)
    assert got[0] == cli_sentence_scores(tmp_path, "gleu", src[:1], refs[:1], comp[:1])[0]
    assert got[1] == cli_sentence_scores(tmp_path, "gleu", src[1:], refs[1:], comp[1:])[0]


SOURCE = "He go to school every day ."


@pytest.mark.parametrize("completion, reason", [
    ("", "empty"), ("  \t ", "empty"), (None, "not text"),
    ("He go " + "day " * 9 + ".", "repeated token"),
    ("He goes to school . " * 20, "too long"),
    ("He goes \ud800 to school", "invalid unicode"),
])
def test_degenerate_completions_get_the_documented_reward(completion, reason):
    reward = Reward("gleu", options=RewardOptions(degenerate_reward=-1.0))
    result = reward.evaluate([SOURCE, SOURCE], [completion, "He goes to school every day ."],
                             [["He goes to school every day ."]] * 2)
    assert result.rewards[0] == -1.0 and result.degenerate == (True, False)
    assert result.reasons[0] == reason and result.rewards[1] == 1.0


def test_repeats_in_the_source_and_near_the_cap_are_scored():
    source = "no " * 10 + "."
    reward = Reward("gleu")
    assert reward.evaluate([source], [source], [source]).degenerate == (False,)
    just_under = "x" * (10 * len(SOURCE))
    assert reward.evaluate([SOURCE], [just_under], [SOURCE]).degenerate == (False,)


def test_very_long_completion_costs_no_time():
    start = time.perf_counter()
    result = Reward("gleu").evaluate([SOURCE], ["word " * 2_000_000], [SOURCE])
    assert result.degenerate == (True,) and time.perf_counter() - start < 5


@pytest.mark.parametrize("make, message", [
    (lambda: Reward("nosuchmetric"), "nosuchmetric"),
    (lambda: Reward("m2"), "reads gold edits from an M2 file"),
    (lambda: Reward("imeasure"), "reads gold edits from an M2 file"),
    (lambda: Reward("gleu:n=0"), "gleu"),
    (lambda: Reward([]), "at least one metric"),
    (lambda: Reward(["gleu", "gleu"]), "twice"),
    (lambda: Reward(["gleu", "chrf"], weights=[1.0]), "weights"),
    (lambda: Reward("gleu", weights=[float("nan")]), "weights"),
    (lambda: RewardOptions(max_length_ratio=0.5), "max_length_ratio"),
    (lambda: RewardOptions(cache_size=-1), "cache_size"),
    (lambda: TrlReward(Reward("gleu"), columns=["src", "refs"]), "source_column 'source'"),
    (lambda: TrlReward(Reward("gleu"), references_column=None), "needs references"),
])
def test_misconfiguration_is_one_config_error(make, message):
    with pytest.raises(ConfigError, match=message) as err:
        make()
    assert "\n" not in str(err.value)


@pytest.mark.extra("errant")
@pytest.mark.parametrize("spec, message", [
    ("gotoscorer", "cannot be a reward: its"),  # weights from the systems scored together
    ("errant:references=m2", "references=m2"),
])
def test_errant_based_misconfiguration_is_one_config_error(spec, message):
    with pytest.raises(ConfigError, match=message) as err:
        Reward(spec)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("call, message", [
    (lambda r: r.score(["a ."], ["a ."], None), "needs references"),
    (lambda r: r.score(["a .", "b ."], ["a ."], ["a .", "b ."]), "1 completions for 2"),
    (lambda r: r.score(["a .", "b ."], ["a .", "b ."], ["a ."]), "1 references for 2"),
    (lambda r: r.score(["a .", "b ."], ["a .", "b ."], ["a .", None]), "row 2"),
    (lambda r: r.score(["a .", "b ."], ["a .", "b ."], ["a .", []]), "row 2"),
    (lambda r: r.score(["a .", 3], ["a .", "b ."], ["a .", "b ."]), "sources, row 2"),
    (lambda r: TrlReward(r)(prompts=["p"], completions=["a .", "b ."], source=["a ."] * 2,
                       references=["a ."] * 2), "1 prompts for 2"),
    (lambda r: TrlReward(r)(prompts=["p"], completions=["a ."], src=["a ."], references=["a ."]),
     "source_column 'source' is not a dataset column; the columns are: src, references"),
])
def test_bad_batches_are_one_input_or_config_error(call, message):
    with pytest.raises((InputError, ConfigError), match=message) as err:
        call(Reward("gleu"))
    assert "\n" not in str(err.value)


def test_trl_convention_strings_and_chat_messages():
    reward = Reward("gleu")
    fn = TrlReward(reward, columns=["prompt", "source", "references"])
    src = [SOURCE] * 4
    refs = [["He goes to school every day .", "He went to school every day ."]] * 4
    texts = ["He goes to school every day .", SOURCE, "He went to school each day .", ""]
    chats = [[{"role": "assistant", "content": t}] for t in texts]
    chats[3] = [{"role": "assistant"}]  # a message without content
    expected = reward.score(src, texts, refs)
    assert fn(prompts=["p"] * 4, completions=texts, source=src, references=refs,
              completion_ids=[[1]] * 4, trainer_state=None) == expected
    assert fn(prompts=[[{"role": "user", "content": "p"}]] * 4, completions=chats,
              source=src, references=refs) == expected
    assert fn.last is not None and fn.last.degenerate == (False, False, False, True)
    assert fn.last.reasons[3] == "not text" and fn.__name__ == "gecmetrics_gleu"


def test_verl_compute_score_signature_and_value():
    params = list(inspect.signature(verl_adapter.compute_score).parameters)
    assert params[:4] == ["data_source", "solution_str", "ground_truth", "extra_info"]
    refs = ["He goes to school every day .", "He went to school every day ."]
    hyp = "He went to school each day ."
    got = verl_adapter.compute_score("conll14", hyp, refs, {"source": SOURCE})
    assert got == Reward("gleu").score([SOURCE], [hyp], [refs])[0]
    chrf = verl_adapter.compute_score("x", hyp, refs[0], {"src": SOURCE}, metric="chrf",
                                      source_key="src")
    assert chrf == Reward("chrf").score([SOURCE], [hyp], [refs[0]])[0]
    with pytest.raises(InputError, match="extra_info has no 'source'"):
        verl_adapter.compute_score("x", hyp, refs, {})


def test_signature_names_every_metric_and_weight():
    sig = Reward(["gleu", "chrf"], weights=[0.5, 0.5]).signature
    assert sig.startswith("0.5*gleu|tokenize:word|") and " + 0.5*chrf|char_order:6|" in sig


def tiny_model_and_tokenizer(texts):
    """A word-level tokenizer over ``texts`` and a randomly initialised two-layer
    causal LM of its vocabulary: nothing is downloaded."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = Tokenizer(models.WordLevel(unk_token="<unk>"))
    words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    words.train_from_iterator(texts, trainers.WordLevelTrainer(
        special_tokens=["<pad>", "<unk>", "<s>", "</s>"]))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=words, pad_token="<pad>",
                                        unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    tokenizer.padding_side = "left"
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=256, pad_token_id=tokenizer.pad_token_id,
                         bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id)
    return LlamaForCausalLM(config), tokenizer


@pytest.mark.full
@pytest.mark.extra("train")
def test_grpo_two_steps_log_the_cli_sentence_scores(conll, tmp_path):
    """TRL's GRPOTrainer, two steps on CPU with a gecmetrics GLEU reward: the rewards it
    logged for the completions it generated are the CLI's sentence scores of them."""
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    sources, references, _ = conll
    rows = [{"prompt": sources[i], "source": sources[i],
             "references": [ref[i] for ref in references]} for i in range(8)]
    dataset = Dataset.from_list(rows)
    model, tokenizer = tiny_model_and_tokenizer(
        [r["source"] for r in rows] + [x for r in rows for x in r["references"]])
    # unigram GLEU: an untrained model's random words rarely make a matching 4-gram, and a
    # run of zero rewards would check little
    spec = "gleu:n=1"
    reward = TrlReward(Reward(spec), columns=dataset.column_names)
    calls = []

    def gleu_reward(prompts, completions, **columns):
        out = reward(prompts=prompts, completions=completions, **columns)
        calls.append((list(columns["source"]), list(columns["references"]), list(completions),
                      out))
        return out

    logged = []

    class Keep(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            logged.append(dict(logs or {}))

    args = GRPOConfig(output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=8,
                      num_generations=4, max_completion_length=12, use_cpu=True,
                      logging_steps=1, report_to="none", save_strategy="no", seed=0,
                      disable_tqdm=True, learning_rate=1e-3)
    trainer = GRPOTrainer(model=model, reward_funcs=gleu_reward, args=args,
                          train_dataset=dataset, processing_class=tokenizer,
                          callbacks=[Keep()])
    trainer.train()

    assert len(calls) == 2
    key = "rewards/gleu_reward/mean"
    means = [log[key] for log in logged if key in log]
    assert len(means) == 2
    for step, ((src, refs, comp, out), mean) in enumerate(zip(calls, means, strict=True)):
        folder = tmp_path / f"step{step}"
        folder.mkdir()
        cli = cli_sentence_scores(folder, spec, src, refs, comp)
        # a degenerate completion (one the model ended at once) gets the documented 0.0
        flags = Reward(spec).evaluate(src, comp, refs).degenerate
        expected = [0.0 if flag else score for flag, score in zip(flags, cli, strict=True)]
        assert any(score > 0 for score in expected)  # not a run of zeros
        assert out == expected
        assert mean == pytest.approx(sum(expected) / len(expected), rel=1e-6, abs=1e-7)
    # the trainer's own table of the last step: its completions and their rewards
    import torch

    last = trainer._logs
    assert list(last["completion"]) == calls[-1][2]
    assert list(last["rewards"]["gleu_reward"]) == torch.tensor(calls[-1][3]).tolist()


def test_a_source_is_one_corpus_row_and_a_scored_triple_is_not_scored_again(conll):
    src, refs, comp = group_batch(conll, 5, 8, seed=1)
    reward = Reward("gleu")
    metric = reward.metrics[0]
    corpora = []
    original = metric.statistics

    def counted(corpus):
        corpora.append(corpus)
        return original(corpus)

    metric.statistics = counted
    first = reward.score(src, comp, refs)
    (corpus,) = corpora
    distinct = {(s, c) for s, c in zip(src, comp, strict=True)}
    assert corpus.num_sentences == 5  # the sources, each once
    assert sum(len(set(col)) for col in zip(*corpus.hypotheses.values(), strict=True)) \
        == len(distinct)
    assert reward.score(src[::-1], comp[::-1], refs[::-1]) == first[::-1]
    assert len(corpora) == 1  # the second call was all cache hits
    metric.statistics = original


def test_jobs_option_is_checked():
    with pytest.raises(ConfigError, match="jobs"):
        RewardOptions(jobs=0)
