"""IMPARA (Maeda et al., COLING 2022): quality estimation gated by similarity.

Two BERT models score a hypothesis ``h`` of a source ``s``:

* the **quality estimator** (QE), a BERT regressor fine-tuned on pairs of
  corrections (the paper builds them from the references' edits), gives
  ``q(h) = sigmoid(QE(h))``;
* the **similarity estimator** (SE), a plain BERT encoder, gives the cosine
  of the mean-pooled last hidden states (padding left out) of ``s`` and ``h``.

The sentence score is ``q(h)`` when ``cos(s, h) >= threshold`` (0.9 in the
paper), else 0: a fluent output that drifts from the source's meaning gets
nothing. The system score is the mean of the sentence scores. Inputs are
truncated to ``max_length`` (128) tokens.

There is no official code and no official checkpoint. The defaults are
those of gec-metrics (Goto et al.), the reference this module was checked
against: ``model_qe=gotutiyan/IMPARA-QE`` (a public re-training on the hub),
``model_se=bert-base-cased``. See docs/metrics/impara.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.errors import ConfigError
from gecmetrics.metric import Metric
from gecmetrics.neural.config import NeuralConfig, check_unit_interval
from gecmetrics.neural.device import resolve_device
from gecmetrics.neural.extra import require_transformers
from gecmetrics.neural.models import ModelRef, load_model, load_tokenizer, no_grad
from gecmetrics.neural.statistics import SentenceScores, pairs_of


@dataclass(frozen=True)
class ImparaConfig(NeuralConfig):
    model_qe: str = "gotutiyan/IMPARA-QE"
    model_se: str = "bert-base-cased"
    threshold: float = 0.9
    max_length: int = 128

    def validate(self) -> None:
        super().validate()
        check_unit_interval(self.threshold, "threshold", "impara")
        if not isinstance(self.max_length, int) or self.max_length < 8:
            raise ConfigError(f"impara option max_length={self.max_length!r} must be an "
                              "integer >= 8")


def gate(quality: np.ndarray, similarity: np.ndarray, threshold: float) -> np.ndarray:
    """``quality`` where ``similarity >= threshold``, else 0, compared in float32
    as the reference does (its similarity is a float32 tensor)."""
    keep = ~(similarity.astype(np.float32) < np.float32(threshold))
    return np.where(keep, quality, 0.0)


class Impara(Metric[ImparaConfig]):
    name: ClassVar[str] = "impara"
    extras: ClassVar[tuple[str, ...]] = ("neural",)
    description: ClassVar[str] = ("IMPARA: BERT quality estimate gated by source similarity, "
                                  "reference-free (Maeda et al. 2022; neural extra)")
    Config: ClassVar[type[Any]] = ImparaConfig
    reference_free: ClassVar[bool] = True

    def statistics(self, corpus: Corpus) -> SentenceScores:
        return self.cached_statistics(corpus, lambda: self._compute(corpus))

    def _compute(self, corpus: Corpus) -> SentenceScores:
        from gecmetrics.neural.batching import run_batched
        from gecmetrics.neural.cache import OutputCache, cache_key

        cfg = self.config
        qe, se = ModelRef(cfg.model_qe), ModelRef(cfg.model_se)
        qe.check("model_qe")
        se.check("model_se")
        identity = "|".join([f"impara-v1 dtype={cfg.dtype} max_length={cfg.max_length}",
                             qe.identity(), se.identity()])
        systems, pairs = pairs_of(corpus)
        keys = [cache_key(src, hyp) for src, hyp in pairs]
        cache = OutputCache("impara", identity, enabled=cfg.cache)
        try:
            raw = run_batched(pairs, _ImparaRunner(cfg, qe, se), cfg.batch_size,
                              "IMPARA: scoring", cache=cache, keys=keys)
        finally:
            cache.close()
        out = np.array(raw, dtype=np.float64).reshape(len(systems), -1, 2)
        quality, similarity = out[..., 0], out[..., 1]
        return SentenceScores(systems, gate(quality, similarity, cfg.threshold), "mean",
                              {"quality": quality, "similarity": similarity})


class _ImparaRunner:
    """QE and SE models, loaded on the first batch that misses the cache."""

    def __init__(self, cfg: ImparaConfig, qe: Any, se: Any) -> None:
        self.cfg, self.qe, self.se = cfg, qe, se
        self.loaded = False

    def _load(self) -> None:
        transformers = require_transformers("impara")
        self.device = resolve_device(self.cfg.device, "impara")
        self.tok_qe = load_tokenizer(self.qe, "impara")
        self.tok_se = load_tokenizer(self.se, "impara")
        self.model_qe = load_model(self.qe, "impara",
                                   transformers.AutoModelForSequenceClassification,
                                   self.device, self.cfg.dtype)
        self.model_se = load_model(self.se, "impara", transformers.AutoModel,
                                   self.device, self.cfg.dtype)
        self.loaded = True

    def _encode(self, tokenizer: Any, texts: list[str]) -> dict[str, Any]:
        enc = tokenizer(texts, max_length=self.cfg.max_length, padding="longest",
                        truncation=True, return_tensors="pt")
        return {k: v.to(self.device) for k, v in enc.items()}

    def _pooled(self, enc: dict[str, Any]) -> Any:
        """Mean of the last hidden states over the real (unmasked) tokens."""
        mask = enc["attention_mask"]
        states = self.model_se(input_ids=enc["input_ids"], attention_mask=mask).last_hidden_state
        states = states * mask.unsqueeze(-1).to(states.dtype)
        return states.sum(dim=1) / mask.sum(dim=-1, keepdim=True).to(states.dtype)

    def __call__(self, batch: list[tuple[str, str]]) -> list[list[float]]:
        import torch


        if not self.loaded:
            self._load()
        srcs = [s for s, _ in batch]
        hyps = [h for _, h in batch]
        with no_grad("impara"):
            enc = self._encode(self.tok_qe, hyps)
            logits = self.model_qe(input_ids=enc["input_ids"],
                                   attention_mask=enc["attention_mask"]).logits.view(-1)
            quality = torch.sigmoid(logits).tolist()
            sim = torch.nn.functional.cosine_similarity(
                self._pooled(self._encode(self.tok_se, srcs)),
                self._pooled(self._encode(self.tok_se, hyps))).tolist()
        return [[q, s] for q, s in zip(quality, sim, strict=True)]
