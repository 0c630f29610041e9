"""The Scribendi Score (Islam and Magnani, EMNLP 2021): a reference-free sign per sentence.

For a source ``s`` and hypothesis ``h``:

* ``0`` when ``h == s`` (no change);
* ``-1`` when the language model's perplexity does not fall,
  ``PPL(s) <= PPL(h)``;
* else ``1`` when ``max(TSR(s, h), LDR(s, h)) >= threshold`` (0.8), i.e. the
  output stays close to the source, and ``-1`` when it does not.

``PPL`` is the exponential of the mean token negative log-likelihood of the
text after a beginning-of-text token (GPT-2 by default, as in the paper).
``TSR`` is the token sort ratio and ``LDR`` the Levenshtein distance ratio,
both in [0, 1], computed exactly as the reference (gec-metrics, after the
authors' gotutiyan/scribendi_score) computes them with fuzzywuzzy and its own
dynamic programme (:func:`token_sort_ratio`, :func:`levenshtein_ratio`; no
third-party library). The paper's corpus score is the **sum** of the
sentence scores; gecmetrics reports it as the detail ``sum`` and uses the mean
(``sum / sentences``, in [-1, 1]) as the corpus score, so that scores stay on
the 0-1 scale of every other metric (tables print percent). On one corpus the
two differ by a constant factor: rankings and correlations are identical. An empty text has no
tokens and so no perplexity: it counts as infinitely perplexing (the
reference gets NaN there, with the same outcome, -1).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from gecmetrics.corpus import Corpus
from gecmetrics.metric import Metric
from gecmetrics.neural.config import NeuralConfig, check_unit_interval
from gecmetrics.neural.device import resolve_device
from gecmetrics.neural.extra import require_transformers
from gecmetrics.neural.models import ModelRef, load_model, load_tokenizer, no_grad
from gecmetrics.neural.statistics import SentenceScores

_NON_WORD = re.compile(r"(?ui)\W")
_NON_LATIN1 = {c: None for c in range(128, 256)}


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``.

    Bit-parallel (Allison and Dix 1986; Hyyrö 2004): one big-integer step
    per character of ``b``, so a 300-character pair costs microseconds.
    """
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, ch in enumerate(a):
        masks[ch] = masks.get(ch, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for ch in b:
        u = v & masks.get(ch, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def indel_ratio(a: str, b: str) -> float:
    """``1 - d / (|a| + |b|)`` with ``d`` the insert/delete edit distance
    (a substitution costs 2), i.e. python-Levenshtein's ``ratio``."""
    total = len(a) + len(b)
    d = total - 2 * lcs_length(a, b)
    return 1 - d / total


def _process_and_sort(text: str) -> str:
    """fuzzywuzzy's ``full_process(force_ascii=True)`` then sorted tokens: code
    points 128-255 removed, non-word characters to spaces, lowercased."""
    cleaned = _NON_WORD.sub(" ", text.translate(_NON_LATIN1)).lower().strip()
    return " ".join(sorted(cleaned.split())).strip()


def token_sort_ratio(a: str, b: str) -> float:
    """fuzzywuzzy's ``token_sort_ratio(a, b) / 100`` (with python-Levenshtein):
    the sorted-token strings' ratio rounded to a whole percent (Python's round)."""
    x, y = _process_and_sort(a), _process_and_sort(b)
    if x == y:
        return 1.0
    if not x or not y:
        return 0.0
    return int(round(100 * indel_ratio(x, y))) / 100


def levenshtein_ratio(a: str, b: str) -> float:
    """The reference's character-level distance ratio ``1 - d / (|a| + |b|)``
    (insertions and deletions cost 1, substitutions 2)."""
    return indel_ratio(a, b)


@dataclass(frozen=True)
class ScribendiConfig(NeuralConfig):
    model: str = "gpt2"
    threshold: float = 0.8

    def validate(self) -> None:
        super().validate()
        check_unit_interval(self.threshold, "threshold", "scribendi")


def sentence_score(src: str, hyp: str, ppl_src: float, ppl_hyp: float,
                   threshold: float) -> int:
    """The Scribendi Score of one pair, given both perplexities."""
    if src == hyp:
        return 0
    if ppl_src <= ppl_hyp:
        return -1
    close = max(token_sort_ratio(src, hyp), levenshtein_ratio(src, hyp))
    return 1 if close >= threshold else -1


class Scribendi(Metric[ScribendiConfig]):
    name: ClassVar[str] = "scribendi"
    extras: ClassVar[tuple[str, ...]] = ("neural",)
    description: ClassVar[str] = ("Scribendi Score: LM perplexity drop with token-sort and "
                                  "Levenshtein ratio checks, reference-free (Islam and "
                                  "Magnani 2021; neural extra)")
    Config: ClassVar[type[Any]] = ScribendiConfig
    reference_free: ClassVar[bool] = True

    def statistics(self, corpus: Corpus) -> SentenceScores:
        return self.cached_statistics(corpus, lambda: self._compute(corpus))

    def _compute(self, corpus: Corpus) -> SentenceScores:
        from gecmetrics.neural.batching import run_batched
        from gecmetrics.neural.cache import OutputCache, cache_key

        cfg = self.config
        ref = ModelRef(cfg.model)
        ref.check("model")
        systems = tuple(corpus.hypotheses)
        # perplexities only where the reference needs them: changed, non-empty texts
        needed: dict[str, None] = {}
        for name in systems:
            for src, hyp in zip(corpus.sources, corpus.hypotheses[name], strict=True):
                if src != hyp:
                    needed.update({t: None for t in (src, hyp) if t})
        texts = list(needed)
        cache = OutputCache("scribendi", f"scribendi-v1 dtype={cfg.dtype}|{ref.identity()}",
                            enabled=cfg.cache)
        try:
            ppls = run_batched(texts, _Perplexity(cfg, ref), cfg.batch_size,
                               "Scribendi: perplexity of", cache=cache,
                               keys=[cache_key(t) for t in texts])
        finally:
            cache.close()
        ppl = dict(zip(texts, ppls, strict=True))
        ppl[""] = math.inf
        scores = np.array([[sentence_score(s, h, ppl.get(s, math.inf), ppl.get(h, math.inf),
                                           cfg.threshold)
                            for s, h in zip(corpus.sources, corpus.hypotheses[name],
                                            strict=True)]
                           for name in systems], dtype=np.float64)
        return SentenceScores(systems, scores.reshape(len(systems), -1), "mean",
                              report_sum=True)


class _Perplexity:
    """The LM, loaded on the first batch that misses the cache."""

    def __init__(self, cfg: ScribendiConfig, ref: Any) -> None:
        self.cfg, self.ref = cfg, ref
        self.model: Any = None

    def _load(self) -> None:
        transformers = require_transformers("scribendi")
        self.device = resolve_device(self.cfg.device, "scribendi")
        self.tokenizer = load_tokenizer(self.ref, "scribendi")
        self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "right"
        self.model = load_model(self.ref, "scribendi", transformers.AutoModelForCausalLM,
                                self.device, self.cfg.dtype)

    def __call__(self, batch: list[str]) -> list[float]:
        import torch


        if self.model is None:
            self._load()
        texts = [self.tokenizer.bos_token + t for t in batch]
        enc = self.tokenizer(texts, return_tensors="pt", padding=True)
        ids = enc["input_ids"].to(self.device)
        mask = enc["attention_mask"].to(self.device)
        with no_grad("scribendi"):
            logits = self.model(input_ids=ids, attention_mask=mask).logits
            shift_logits = logits[:, :-1, :]
            labels, keep = ids[:, 1:], mask[:, 1:]
            nll = torch.nn.functional.cross_entropy(
                shift_logits.reshape(-1, shift_logits.size(-1)), labels.reshape(-1),
                reduction="none").view(labels.shape)
            mean = (nll * keep).sum(dim=1) / keep.sum(dim=1)
            return [float(x) for x in torch.exp(mean).tolist()]
