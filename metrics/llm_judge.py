"""LLM judge: an LLM scores every correction 1-5 (Kobayashi et al., BEA 2024).

For each source sentence, the distinct hypotheses of all systems are sorted
and sent to the model in prompts of at most ``group_size`` (5, as in the
paper) targets; the model answers a 1-5 score per target
(:mod:`metrics.llm_prompts`). Systems with the same output get the same score.

Levels (scores in 0-1: a judgement s in 1..5 is reported as (s - 1) / 4):

* ``sentence``: each hypothesis' judgement;
* ``mean`` and ``corpus``: the mean judgement of the system over the sentences
  (the paper's system score from sentence scores; its TrueSkill ranking is
  ``meta-eval --level trueskill``, which rates systems from these sentence
  scores as SEEDA's human ranking does).

The model is asked only for prompts whose answer is not in the disk cache
(:class:`gecmetrics.neural.cache.OutputCache`), so a rerun, another level or a meta-evaluation
sweep over the same outputs asks nothing. Every option is checked when the
metric is made, before any file is read; an answer that does not hold a score
for every target stops the run with one line (:func:`metrics.llm_prompts.parse_answer`).
See docs/metrics/llm-judge.md.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.formatting import plural
from gecmetrics.metric import Metric, MetricConfig, Score, Statistics
from gecmetrics.neural.device import check_device_name
from gecmetrics.neural.models import ModelRef

from .llm_prompts import (
    CRITERIA,
    FORMS,
    HIGHEST,
    LOWEST,
    TEMPLATE_VERSION,
    build_prompt,
    edit_target,
    group_targets,
    parse_answer,
)

if TYPE_CHECKING:  # the backends (urllib, torch) are imported only when asked
    from .llm_backends import OpenAIBackend, TransformersBackend

Backend = Literal["openai", "transformers"]
Criterion = Literal["none", "grammaticality", "fluency", "meaning", "difficulty", "impact"]
Form = Literal["sentence", "edits"]

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Endpoint prompts asked between two cache writes (an interrupted run keeps the rest).
WRITE_EVERY = 32


@dataclass(frozen=True)
class LlmJudgeConfig(MetricConfig):
    backend: Backend = "openai"
    model: str = ""
    base_url: str = "https://api.openai.com/v1"
    api_key_env: str = "OPENAI_API_KEY"
    revision: str = ""
    criterion: Criterion = "none"
    form: Form = "sentence"
    group_size: int = 5
    temperature: float = 0.0
    seed: int = 777
    max_tokens: int = 256
    timeout: float = 60.0
    retries: int = 5
    backoff: float = 1.0
    workers: int = 1
    device: str = "auto"
    batch_size: int = 8
    cache: bool = True

    def validate(self) -> None:
        if self.backend not in ("openai", "transformers"):
            raise ConfigError(f"llm-judge option backend={self.backend!r}: choose openai "
                              "(an OpenAI-compatible endpoint) or transformers (a local model)")
        if self.criterion not in CRITERIA:
            raise ConfigError(f"llm-judge option criterion={self.criterion!r}: choose one of "
                              f"{', '.join(CRITERIA)}")
        if self.form not in FORMS:
            raise ConfigError(f"llm-judge option form={self.form!r}: choose sentence (targets "
                              "as corrected sentences) or edits (as ERRANT edits)")
        for key, low in (("group_size", 1), ("max_tokens", 1), ("retries", 0), ("workers", 1),
                         ("batch_size", 1), ("seed", -2**63)):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ConfigError(f"llm-judge option {key} must be an integer >= {low} "
                                  f"(got {value!r})")
        for key, least in (("temperature", 0.0), ("timeout", 1e-3), ("backoff", 0.0)):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    least <= value < math.inf):  # an infinite timeout or backoff never ends
                raise ConfigError(f"llm-judge option {key} must be a finite number >= {least} "
                                  f"(got {value!r})")
        if not re.match(r"https?://[^/\s]+", self.base_url):
            raise ConfigError(f"llm-judge option base_url={self.base_url!r} must be an http:// "
                              "or https:// URL, e.g. http://127.0.0.1:8000/v1")
        if not _ENV_NAME.fullmatch(self.api_key_env):
            raise ConfigError(f"llm-judge option api_key_env must NAME an environment variable "
                              f"that holds the key (e.g. api_key_env=OPENAI_API_KEY), not "
                              f"{'the key itself' if len(self.api_key_env) > 20 else 'this'}")

        check_device_name(self.device, "llm-judge option device")
        if not isinstance(self.cache, bool):
            raise ConfigError("llm-judge option cache must be true or false")


class LlmJudgeStatistics(Statistics):
    """The judgement (1-5) of every (system, sentence); scores are (s - 1) / 4."""

    def __init__(self, systems: tuple[str, ...], judgements: np.ndarray) -> None:
        self.systems = systems
        self.judgements = judgements  # (H, D) integers 1..5
        self.scores = (judgements.astype(np.float64) - LOWEST) / (HIGHEST - LOWEST)

    def sentence(self, beta: float | None = None) -> np.ndarray:
        return self.scores

    def corpus(self, beta: float | None = None,
               sentences: np.ndarray | None = None) -> list[Score]:
        idx = slice(None) if sentences is None else np.asarray(sentences, dtype=np.int64)
        scores, raw = self.scores[:, idx], self.judgements[:, idx]
        n = scores.shape[1]
        means = scores.mean(axis=1) if n else np.zeros(len(self.systems))
        raw_means = raw.mean(axis=1) if n else np.zeros(len(self.systems))
        return [Score(float(m), details={"mean_judgement": float(r), "sentences": int(n)})
                for m, r in zip(means, raw_means, strict=True)]

    def sentence_statistics(self, beta: float | None = None) -> Any:
        """(score, 1) per sentence: the corpus score is their sum's ratio (a mean)."""
        stats = np.stack([self.scores, np.ones_like(self.scores)], axis=-1)
        return stats, lambda sums: sums[..., 0] / sums[..., 1]


class LlmJudge(Metric[LlmJudgeConfig]):
    """Scores from an LLM asked to rate corrections 1-5 (Kobayashi et al. 2024)."""

    name = "llm-judge"
    description = ("LLM judge (Kobayashi et al. 2024): an OpenAI-compatible endpoint or a "
                   "local model scores each correction 1-5; reference-free")
    Config: ClassVar[type[LlmJudgeConfig]] = LlmJudgeConfig

    def __init__(self, config: LlmJudgeConfig | None = None, **options: Any) -> None:
        if "api_key" in options:
            raise ConfigError("llm-judge takes no API key as an option (it would end up in "
                              "shell history and signatures); put it in an environment "
                              "variable and name that with api_key_env=VAR (default "
                              "OPENAI_API_KEY)")
        super().__init__(config, **options)
        if not self.config.model:
            raise ConfigError("llm-judge needs model=NAME: the endpoint's model name with "
                              "backend=openai, or a local folder or hub id with "
                              "backend=transformers (e.g. llm-judge:model=gpt-4o-mini)")
        if self.config.backend == "transformers":

            ModelRef(self.config.model, self.config.revision or None).check("llm-judge model")

    def required_extras(self) -> tuple[str, ...]:
        """``form=edits`` shows ERRANT's edits (the errant extra); a local model
        (``backend=transformers``) needs the neural extra; an endpoint neither."""
        return (("errant",) if self.config.form == "edits" else ()) + (
            ("neural",) if self.config.backend == "transformers" else ())

    @functools.cached_property
    def backend(self) -> OpenAIBackend | TransformersBackend:
        from .llm_backends import Endpoint, OpenAIBackend, TransformersBackend

        c = self.config
        if c.backend == "openai":
            return OpenAIBackend(Endpoint(c.base_url, c.model, c.api_key_env,
                                          timeout=float(c.timeout), retries=c.retries,
                                          backoff=float(c.backoff), seed=c.seed,
                                          temperature=float(c.temperature),
                                          max_tokens=c.max_tokens, workers=c.workers))
        return TransformersBackend(c.model, c.revision or None, device=c.device,
                                   max_tokens=c.max_tokens, batch_size=c.batch_size)

    def statistics(self, corpus: Corpus) -> LlmJudgeStatistics:
        return self.cached_statistics(corpus, lambda: self._judge(corpus))

    def prompts(self, corpus: Corpus) -> list[tuple[int, list[str], str]]:
        """Every (sentence index, targets, prompt) that scoring ``corpus`` asks."""
        systems = list(corpus.hypotheses)
        c = self.config
        shown = self._edit_targets(corpus) if c.form == "edits" else None
        jobs = []
        for d, source in enumerate(corpus.sources):
            hyps = [corpus.hypotheses[s][d] for s in systems]
            for group in group_targets(hyps, c.group_size):
                targets = group if shown is None else [shown[d, h] for h in group]
                jobs.append((d, group, build_prompt(source, targets, c.criterion, c.form)))
        return jobs

    def _edit_targets(self, corpus: Corpus) -> dict[tuple[int, str], str]:
        """Each (sentence, hypothesis) as its ERRANT edits (the errant metric's extractor
        and disk edit cache)."""
        from gecmetrics.edits.extraction import Extractor, pair_edits

        pairs = {(d, h): (src, h) for d, src in enumerate(corpus.sources)
                 for hyps in corpus.hypotheses.values() for h in (hyps[d],)}
        with Extractor(disk=self.config.cache) as extractor:
            edits = extractor.extract(pairs.values(), [])
        out = {}
        for (d, h), (src, hyp) in pairs.items():
            found = pair_edits(edits, src, hyp)
            out[d, h] = edit_target(src, [(e[0], e[1], e[2]) for e in found])
        return out

    def answers(self, prompts: list[str], wheres: list[str],
                sizes: list[int] | None = None) -> list[str]:
        """The raw answer to each prompt: from the cache, else from the model (then cached).

        With ``sizes`` (targets per prompt), each batch of new answers is parsed
        as soon as it arrives, so an unusable model stops the run after one batch
        instead of after the whole corpus has been paid for.

        The shared neural machinery does the bookkeeping: :class:`OutputCache`
        (namespace ``llm-judge``; identity = backend, model identity, generation
        settings and :data:`TEMPLATE_VERSION`; one key per prompt text) and
        :func:`run_batched` (cache first, each distinct prompt asked once,
        answers written after every batch, a progress bar).
        """
        from gecmetrics.neural.batching import run_batched
        from gecmetrics.neural.cache import OutputCache, cache_key

        backend = self.backend
        identity = "|".join((backend.name, backend.identity(), backend.settings(),
                             TEMPLATE_VERSION))
        cache = OutputCache("llm-judge", identity, enabled=self.config.cache)
        batch = (self.config.batch_size if self.config.backend == "transformers"
                 else max(WRITE_EVERY, self.config.workers))

        def ask(items: list[tuple[str, str, int]]) -> list[str]:
            got = backend.complete([p for p, _, _ in items], [w for _, w, _ in items])
            for (_, where, n), text in zip(items, got, strict=True):
                if n:
                    parse_answer(text, n, where)
            return got

        try:
            out = run_batched(
                list(zip(prompts, wheres, sizes or [0] * len(prompts), strict=True)), ask,
                batch, f"llm-judge {self.config.model}", cache=cache,
                keys=[cache_key(p) for p in prompts])
        finally:
            cache.close()
        return [str(a) for a in out]

    def _judge(self, corpus: Corpus) -> LlmJudgeStatistics:
        systems = tuple(corpus.hypotheses)
        jobs = self.prompts(corpus)
        wheres = [f"sentence {d + 1} ({_short(corpus.sources[d])}), {plural(len(group), 'target')}"
                  for d, group, _ in jobs]
        answers = self.answers([p for _, _, p in jobs], wheres, [len(g) for _, g, _ in jobs])
        judged: dict[tuple[int, str], int] = {}
        for (d, group, _), where, text in zip(jobs, wheres, answers, strict=True):
            for hyp, score in zip(group, parse_answer(text, len(group), where), strict=True):
                judged[d, hyp] = score
        out = np.zeros((len(systems), len(corpus.sources)), dtype=np.int64)
        for h, name in enumerate(systems):
            for d, hyp in enumerate(corpus.hypotheses[name]):
                out[h, d] = judged[d, hyp]
        return LlmJudgeStatistics(systems, out)


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit - 3] + "...")
