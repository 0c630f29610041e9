"""SOME (Yoshimura et al., COLING 2020): reference-less sub-metrics fitted to human ratings.

Three BERT regressors, fine-tuned on the TMU-GFM-Dataset's human ratings
(0-4), score a hypothesis ``h`` of a source ``s``: grammaticality ``g(h)`` and
fluency ``f(h)`` read the hypothesis alone, meaning preservation ``m(s, h)``
reads the pair. Each raw output is min-max normalised with the bounds the
authors' code uses, ``n(x) = (x - 1) / (4 - 1)``, and the sentence score is

    SOME(s, h) = w_g n(g(h)) + w_f n(f(h)) + w_m n(m(s, h)),
    (w_g, w_f, w_m) = (0.55, 0.43, 0.02)

(the weights tuned on GJG15's system ranking; the paper and kokeman/SOME).
The system score is the mean of the sentence scores (the authors' ``--system``),
so ``corpus`` and ``mean`` agree. Inputs are tokenized with the authors'
tokenizer (``bert-base-cased``), truncated to 128 tokens.

The checkpoints are not on the model hub: the authors share them on Google
Drive (the link is in https://github.com/kokeman/SOME's README); unpack them
and pass the three folders as ``model_g``, ``model_f``, ``model_m``. See
docs/metrics/some.md for what was checked (the code path, against gec-metrics
with tiny random models) and what could not be (the published scores).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.metric import Metric
from gecmetrics.neural.config import NeuralConfig
from gecmetrics.neural.device import resolve_device
from gecmetrics.neural.extra import require_transformers
from gecmetrics.neural.models import ModelRef, load_model, load_tokenizer, no_grad
from gecmetrics.neural.statistics import SentenceScores, pairs_of

#: How SOME's checkpoints are obtained (they are not on the hub).
WHERE = ("SOME's checkpoints are not on the model hub: download them from the Google Drive "
         "link in https://github.com/kokeman/SOME's README, unpack, and pass "
         "model_g=DIR,model_f=DIR,model_m=DIR")


@dataclass(frozen=True)
class SomeConfig(NeuralConfig):
    model_g: str = ""
    model_f: str = ""
    model_m: str = ""
    tokenizer: str = "bert-base-cased"
    weight_g: float = 0.55
    weight_f: float = 0.43
    weight_m: float = 0.02
    max_length: int = 128

    def validate(self) -> None:
        super().validate()
        for key in ("weight_g", "weight_f", "weight_m"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    math.isfinite(value)):  # a NaN weight would make every score NaN
                raise ConfigError(f"some option {key}={value!r} must be a finite number")
        if not isinstance(self.max_length, int) or self.max_length < 8:
            raise ConfigError(f"some option max_length={self.max_length!r} must be an "
                              "integer >= 8")


def normalize(x: Any) -> Any:
    """The authors' min-max normalisation of a raw rating (scale 1-4)."""
    return (x - 1) / (4 - 1)


class Some(Metric[SomeConfig]):
    name: ClassVar[str] = "some"
    extras: ClassVar[tuple[str, ...]] = ("neural",)
    description: ClassVar[str] = ("SOME: grammaticality, fluency and meaning BERT regressors, "
                                  "reference-free (Yoshimura et al. 2020; neural extra)")
    Config: ClassVar[type[Any]] = SomeConfig
    reference_free: ClassVar[bool] = True

    def statistics(self, corpus: Corpus) -> SentenceScores:
        return self.cached_statistics(corpus, lambda: self._compute(corpus))

    def _compute(self, corpus: Corpus) -> SentenceScores:
        from gecmetrics.neural.batching import run_batched
        from gecmetrics.neural.cache import OutputCache, cache_key

        cfg = self.config
        refs = {}
        for key in ("model_g", "model_f", "model_m"):
            value = getattr(cfg, key)
            if not value:
                raise ConfigError(f"some needs {key}: {WHERE}")
            refs[key] = ModelRef(value)
            refs[key].check(key)
        tok = ModelRef(cfg.tokenizer)
        tok.check("tokenizer")
        identity = "|".join([f"some-v1 dtype={cfg.dtype} max_length={cfg.max_length}",
                             *(r.identity() for r in refs.values()), tok.identity()])
        systems, pairs = pairs_of(corpus)
        keys = [cache_key(src, hyp) for src, hyp in pairs]
        runner = _SomeRunner(cfg, refs, tok)
        cache = OutputCache("some", identity, enabled=cfg.cache)
        try:
            raw = run_batched(pairs, runner, cfg.batch_size, "SOME: scoring",
                              cache=cache, keys=keys)
        finally:
            cache.close()
        out = np.array(raw, dtype=np.float64).reshape(len(systems), -1, 3)
        g, f, m = (normalize(out[..., i]) for i in range(3))
        # the reference's order of operations (f, g, m), IEEE doubles elementwise
        scores = cfg.weight_f * f + cfg.weight_g * g + cfg.weight_m * m
        return SentenceScores(systems, scores, "mean",
                              {"grammaticality": g, "fluency": f, "meaning": m})


class _SomeRunner:
    """The three models, loaded on the first batch that misses the cache."""

    def __init__(self, cfg: SomeConfig, refs: dict[str, Any], tok: Any) -> None:
        self.cfg, self.refs, self.tok = cfg, refs, tok
        self.models: dict[str, Any] | None = None

    def _load(self) -> None:
        transformers = require_transformers("some")
        self.device = resolve_device(self.cfg.device, "some")
        self.tokenizer = load_tokenizer(self.tok, "some")
        cls = transformers.AutoModelForSequenceClassification
        self.models = {k: load_model(r, "some", cls, self.device, self.cfg.dtype)
                       for k, r in self.refs.items()}

    def __call__(self, batch: list[tuple[str, str]]) -> list[list[float]]:
        if self.models is None:
            self._load()
        assert self.models is not None
        srcs = [s for s, _ in batch]
        hyps = [h for _, h in batch]
        args = {"max_length": self.cfg.max_length, "padding": "longest", "truncation": True,
                "return_tensors": "pt"}
        single = {k: v.to(self.device) for k, v in self.tokenizer(hyps, **args).items()}
        pair = {k: v.to(self.device) for k, v in self.tokenizer(srcs, hyps, **args).items()}
        with no_grad("some"):
            g = self.models["model_g"](**single).logits.view(-1).tolist()
            f = self.models["model_f"](**single).logits.view(-1).tolist()
            m = self.models["model_m"](**pair).logits.view(-1).tolist()
        return [[a, b, c] for a, b, c in zip(g, f, m, strict=True)]
