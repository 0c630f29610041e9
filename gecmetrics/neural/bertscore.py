"""BERTScore F (Zhang et al., ICLR 2020) of (candidate, reference) pairs, natively.

PT-M2 (:mod:`gecmetrics.metrics.ptm2`) weighs every edit by a BERTScore
difference, so it needs thousands of BERTScore values per system; this module
computes them the way the ``bert_score`` package (0.3.11, the copy vendored by
PT-M2 at commit 67ef575) does, operation by operation in float32, so that the
numbers agree with the reference implementation:

* **Tokens.** ``sent_encode``: the text stripped, special tokens added,
  truncated at the tokenizer's ``model_max_length``; an empty text is just the
  special tokens. RoBERTa/GPT-2 tokenizers get ``add_prefix_space``.
* **Embeddings.** The hidden states after ``layer`` transformer layers (the
  reference drops the layers above ``layer`` and takes the last one; the same
  numbers). Default layers per model are bert_score's (``bert-base-uncased``:
  9, ``roberta-large``: 17); any other model needs ``layer``.
* **Greedy matching.** Embeddings normalised to unit length, the cosine
  matrix of candidate and reference tokens, each candidate token's best match
  (precision) and each reference token's (recall), averaged; every token
  weighs 1 except ``[CLS]``/``[SEP]`` (0): bert_score without idf, as PT-M2
  calls it (idf weighting is not implemented).
  F = 2PR/(P+R), and 0 where that is NaN (an empty text).
* **Baseline rescaling** (``rescale_with_baseline=True``, as PT-M2 uses it):
  F' = (F - b)/(1 - b) with bert_score's baseline b of the model and layer
  (``bert-base-uncased`` layer 9: 0.35219112). PT-M2's scores do not depend on
  it (every weight is scaled by the same 1/(1 - b)); it is kept so that the
  per-pair values, which the cache stores, are bert_score's.

Padding: bert_score embeds the two texts of a call padded to the longer one,
and padding moves a BERT embedding by about 1e-7 (float32 rounding in the
attention), enough to move PT-M2 scores by 1e-6. So each text is embedded
padded to the length of its pair's longer text, as there; texts of the same
padded length share a batch (rows of a batch are computed independently; the
batch size moves at most the last float32 bit, PT-M2 scores by 2e-8 on the
test's 60 sentences). A pair's value therefore depends on the pair only, and a
cached value is the value a fresh run gives.

Values are cached per (model identity, layer, baseline, candidate,
reference) in :class:`~gecmetrics.neural.cache.OutputCache`, so a rerun (or
another system sharing edits, or a meta-evaluation sweep) does no inference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gecmetrics.errors import ConfigError
from gecmetrics.neural.device import resolve_device
from gecmetrics.neural.extra import require_torch
from gecmetrics.neural.models import ModelRef, load_model, load_tokenizer

#: bert_score's default layer per model (its ``model2layers``, tuned on WMT16).
DEFAULT_LAYERS: Mapping[str, int] = {
    "bert-base-uncased": 9,
    "bert-large-uncased": 18,
    "bert-base-cased": 9,
    "roberta-base": 10,
    "roberta-large": 17,
    "distilbert-base-uncased": 5,
}

#: bert_score's rescaling baselines of F (``rescale_baseline/en/<model>.tsv``,
#: the row of the default layer).
BASELINES_F: Mapping[tuple[str, int], float] = {
    ("bert-base-uncased", 9): 0.35219112,
    ("roberta-large", 17): 0.83122575,
}

Pair = tuple[str, str]
METRIC = "ptm2"


def default_layer(model: str) -> int:
    """bert_score's layer for ``model``, or a one-line error asking for ``layer``."""
    try:
        return DEFAULT_LAYERS[model]
    except KeyError:
        known = ", ".join(sorted(DEFAULT_LAYERS))
        raise ConfigError(
            f"no default BERTScore layer for model {model!r} (known: {known}); "
            "give one with the metric option layer=N") from None


@dataclass
class BertScorer:
    """BERTScore F of text pairs with one model and layer (see the module docstring).

    ``model``: a hub id or a local folder; ``baseline``: the rescaling baseline
    b of F, or None for raw F. ``cache``: keep values in
    the on-disk output cache. :attr:`forward_passes` counts model calls (a
    cached rerun makes none).
    """

    model: str
    layer: int
    revision: str | None = None
    baseline: float | None = None
    device: str = "auto"
    dtype: str = "float32"
    batch_size: int = 64
    cache: bool = True
    #: The cache file; None: the output cache's default place.
    cache_path: Any = None
    forward_passes: int = 0
    _loaded: Any = field(default=None, repr=False)

    # -- identity ------------------------------------------------------------
    def identity(self) -> str:
        """What a cached value depends on besides the texts."""
        ref = ModelRef(self.model, self.revision)
        base = "none" if self.baseline is None else repr(float(self.baseline))
        dtype = "" if self.dtype == "float32" else f"|dtype={self.dtype}"
        return f"{ref.identity()}|layer={self.layer}|idf=none|baseline={base}{dtype}"

    # -- model ---------------------------------------------------------------
    def _load(self) -> Any:
        if self._loaded is None:

            torch = require_torch(METRIC)
            ref = ModelRef(self.model, self.revision)
            ref.check()
            device = resolve_device(self.device, METRIC)
            tokenizer = load_tokenizer(ref, METRIC)
            model = load_model(ref, METRIC, device=device, dtype=self.dtype)
            n_layers = _num_layers(model)
            if n_layers is not None and not 0 <= self.layer <= n_layers:
                raise ConfigError(f"BERTScore layer {self.layer} is out of range for model "
                                  f"{self.model!r}, which has {n_layers} layers")
            if n_layers is not None:  # drop the unused layers, as bert_score does
                model.encoder.layer = torch.nn.ModuleList(model.encoder.layer[:self.layer])
            self._loaded = (torch, tokenizer, model, device)
        return self._loaded

    def encode(self, text: str) -> list[int]:
        """bert_score's ``sent_encode``: token ids with the special tokens."""
        _torch, tokenizer, _model, _device = self._load()
        return sent_encode(tokenizer, text)

    def _embed(self, rows: Sequence[tuple[list[int], int]]) -> list[Any]:
        """Hidden states at :attr:`layer` of each (token ids, padded length L).

        Rows are batched by L and padded to it, so each text is embedded exactly
        as bert_score embeds it beside the other text of its pair (padding moves
        the embedding by about 1e-7; the batch size does not, rows are computed
        independently). Returns one (tokens, dim) float32 CPU tensor per row.
        """
        torch, tokenizer, model, device = self._load()
        out: list[Any] = [None] * len(rows)
        by_len: dict[int, list[int]] = {}
        for i, (_ids, length) in enumerate(rows):
            by_len.setdefault(length, []).append(i)
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        truncated = _num_layers(model) is not None
        with torch.no_grad():
            for length, idx in sorted(by_len.items()):
                for s in range(0, len(idx), self.batch_size):
                    chunk = idx[s:s + self.batch_size]
                    ids = torch.full((len(chunk), length), pad, dtype=torch.long)
                    mask = torch.zeros((len(chunk), length), dtype=torch.long)
                    for row, i in enumerate(chunk):
                        n = len(rows[i][0])
                        ids[row, :n] = torch.tensor(rows[i][0], dtype=torch.long)
                        mask[row, :n] = 1
                    self.forward_passes += 1
                    hidden = model(ids.to(device), attention_mask=mask.to(device),
                                   output_hidden_states=not truncated)
                    emb = (hidden[0] if truncated
                           else hidden.hidden_states[self.layer]).float().cpu()
                    for row, i in enumerate(chunk):
                        out[i] = emb[row, :len(rows[i][0])]
        return out

    def _weights(self, ids: list[int]) -> list[float]:
        """bert_score's token weights without idf: 1, and 0 for ``[CLS]``/``[SEP]``."""
        _torch, tokenizer, _model, _device = self._load()
        special = {tokenizer.sep_token_id, tokenizer.cls_token_id}
        return [0.0 if t in special else 1.0 for t in ids]

    def _compute(self, pairs: Sequence[Pair]) -> list[float]:
        """F of ``pairs`` with the model (no cache)."""
        torch = self._load()[0]
        ids = {t: self.encode(t) for t in sorted({t for p in pairs for t in p})}
        lengths = [max(len(ids[c]), len(ids[r])) for c, r in pairs]
        rows = sorted({(t, n) for (c, r), n in zip(pairs, lengths, strict=True) for t in (c, r)})
        embs = dict(zip(rows, self._embed([(ids[t], n) for t, n in rows]), strict=True))
        weights = {t: self._weights(i) for t, i in ids.items()}
        out = []
        for (cand, ref), n in zip(pairs, lengths, strict=True):
            f = greedy_f(torch, embs[(cand, n)], weights[cand], embs[(ref, n)], weights[ref])
            out.append(self._rescale(torch, f))
        return out

    def _rescale(self, torch: Any, f: Any) -> float:
        if self.baseline is None:
            return float(f.item())
        b = torch.tensor([float(self.baseline)], dtype=torch.float64).float()
        return float(((f - b) / (1 - b)).item())

    # -- public --------------------------------------------------------------
    def f_scores(self, pairs: Sequence[Pair], progress_label: str = "BERTScore") -> list[float]:
        """BERTScore F (rescaled when :attr:`baseline` is set) of each (candidate, reference).

        Cached values first; the model runs on the missing pairs only, in batches
        of ``8 * batch_size`` pairs (a pair is two texts, and the texts of one
        sentence's pairs recur: the source, the references).
        """
        from gecmetrics.neural.batching import run_batched
        from gecmetrics.neural.cache import OutputCache, cache_key

        cache = OutputCache("bertscore", self.identity(), enabled=self.cache,
                            path=self.cache_path)
        try:
            keys = [cache_key(cand, ref) for cand, ref in pairs]
            values = run_batched(list(pairs), self._compute, self.batch_size * 8,
                                 progress_label, cache=cache, keys=keys)
        finally:
            cache.close()
        return [float(v) for v in values]


def _num_layers(model: Any) -> int | None:
    """The number of transformer layers of a BERT-like model (None: not that layout)."""
    encoder = getattr(model, "encoder", None)
    layers = getattr(encoder, "layer", None)
    return len(layers) if layers is not None else None


def sent_encode(tokenizer: Any, text: str) -> list[int]:
    """bert_score 0.3.11's ``sent_encode`` (the text stripped; empty: special tokens only)."""
    text = text.strip()
    if text == "":  # bert_score: build_inputs_with_special_tokens([]), gone in transformers 5
        build = getattr(tokenizer, "build_inputs_with_special_tokens", None)
        if build is not None:
            return list(build([]))
        return list(tokenizer.encode("", add_special_tokens=True))
    kwargs: dict[str, Any] = {"add_special_tokens": True,
                              "max_length": tokenizer.model_max_length, "truncation": True}
    name = type(tokenizer).__name__
    if "GPT2" in name or "Roberta" in name:
        kwargs["add_prefix_space"] = True
    return list(tokenizer.encode(text, **kwargs))


def greedy_f(torch: Any, hyp: Any, hyp_w: list[float], ref: Any, ref_w: list[float]) -> Any:
    """bert_score's ``greedy_cos_idf`` for one pair, in its float32 operations.

    Returns F as a 1-element float32 tensor. An empty text (only the special
    tokens) has all weights 0, so P or R is NaN and F is set to 0, as there.
    """
    h = hyp.unsqueeze(0).clone()
    r = ref.unsqueeze(0).clone()
    r.div_(torch.norm(r, dim=-1).unsqueeze(-1))
    h.div_(torch.norm(h, dim=-1).unsqueeze(-1))
    sim = torch.bmm(h, r.transpose(1, 2))
    word_precision = sim.max(dim=2)[0]
    word_recall = sim.max(dim=1)[0]
    hw = torch.tensor([hyp_w], dtype=torch.float)
    rw = torch.tensor([ref_w], dtype=torch.float)
    hw.div_(hw.sum(dim=1, keepdim=True))
    rw.div_(rw.sum(dim=1, keepdim=True))
    p = (word_precision * hw).sum(dim=1)
    rr = (word_recall * rw).sum(dim=1)
    f = 2 * p * rr / (p + rr)
    return f.masked_fill(torch.isnan(f), 0.0)
