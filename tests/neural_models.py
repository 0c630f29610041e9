"""Tiny random transformers models for the tests of the model-based metrics.

No model hub is reachable where the tests run, and the published checkpoints
are hundreds of MB, so the tests check the *code path* instead: each metric,
given these tiny seeded models, must give the numbers the reference
implementation gives with the same models (tests/data/neural_reference.json).
Everything is built from files written here (vocabularies, merges, configs,
seeded weights saved with ``save_pretrained``), so the reference venv, the
project venv and CI rebuild bit-identical models from the same seeds.

* :func:`save_bert`: a 2-layer BERT (hidden 32, 2 heads) with a cased WordPiece
  vocabulary (special tokens, single characters and ``##`` characters, so any
  text tokenizes, plus common English words), as a sequence regressor
  (``num_labels=1``: SOME, IMPARA's quality estimator) or a bare encoder
  (IMPARA's similarity estimator, BERTScore);
* :func:`save_gpt2`: a 2-layer GPT-2 (hidden 32) with a byte-level BPE
  tokenizer (the 256 byte symbols plus a few dozen merges): Scribendi's LM.

Usage: ``save_bert(tmp_path / "g", seed=1, head="regression")``; the folder
then loads with ``AutoTokenizer`` / ``AutoModel...``. torch and transformers
are imported inside the functions (tests gate on the neural extra first).
"""

from __future__ import annotations

import json
from pathlib import Path

#: Whole words in the BERT vocabulary (the rest splits into characters).
WORDS = (
    "the of and to a in is that for it as was with be by on not he this are or his "
    "from at which but have an they you were her she there been one all we their "
    "has would more if will can people should about these other also some genetic "
    "testing risk information family members patients disease health may do so "
    "The It In This However I They We , . ' \" ( ) - ; : ? !"
).split()

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
CHARS = [chr(c) for c in range(33, 127)]

#: BPE merges of the tiny GPT-2 tokenizer (byte-level symbols, Ġ = space).
MERGES = ["Ġ t", "h e", "i n", "e r", "a n", "o n", "Ġ a", "r e", "Ġt he", "e s",
          "Ġ s", "o r", "e n", "a t", "Ġ w", "Ġ o", "Ġ c", "i s", "Ġ p", "i t",
          "Ġ f", "Ġ b", "a l", "in g", "Ġ m", "e d", "Ġ i", "o u", "Ġo f", "Ġ d",
          "Ġa n", "Ġ h", "l e", "a r", "Ġt o", "Ġan d", "Ġ g", "i c", "Ġ in", "s t"]


def bert_vocab() -> list[str]:
    seen: dict[str, None] = {}
    for tok in SPECIALS + CHARS + ["##" + c for c in CHARS] + list(WORDS):
        seen.setdefault(tok, None)
    return list(seen)


def save_bert(folder: Path, seed: int, head: str = "regression", num_labels: int = 1,
              hidden: int = 32, layers: int = 2) -> Path:
    """A seeded tiny BERT + cased WordPiece tokenizer saved to ``folder``.

    ``head``: ``regression`` (BertForSequenceClassification, ``num_labels``
    outputs, problem_type regression) or ``encoder`` (BertModel).
    """
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertModel

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = bert_vocab()
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "BertTokenizer", "do_lower_case": False,
        "model_max_length": 512, "unk_token": "[UNK]", "sep_token": "[SEP]",
        "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]"}), encoding="utf-8")
    (folder / "special_tokens_map.json").write_text(json.dumps({
        "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
        "cls_token": "[CLS]", "mask_token": "[MASK]"}), encoding="utf-8")
    config = BertConfig(vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=layers,
                        num_attention_heads=2, intermediate_size=37,
                        max_position_embeddings=512, num_labels=num_labels,
                        problem_type="regression" if head == "regression" else None,
                        pad_token_id=0)
    torch.manual_seed(seed)
    if head == "regression":
        model = BertForSequenceClassification(config)
    elif head == "encoder":
        model = BertModel(config)
    else:
        raise ValueError(f"head {head!r}")
    if head == "regression":
        with torch.no_grad():  # larger random weights: scores spread beyond ~1e-3
            for p in model.parameters():
                p.normal_(0.0, 0.2, generator=torch.Generator().manual_seed(seed + p.numel()))
    # an encoder keeps BERT's own initialisation (normal(0, 0.02), seeded above): its
    # token states then differ enough for IMPARA's similarities to spread
    model.save_pretrained(folder)
    return folder


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character table."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
          + list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs), strict=True))


def save_gpt2(folder: Path, seed: int, hidden: int = 32, layers: int = 2) -> Path:
    """A seeded tiny GPT-2 LM + byte-level BPE tokenizer saved to ``folder``."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    symbols = [_bytes_to_unicode()[b] for b in range(256)]
    vocab: dict[str, int] = {s: i for i, s in enumerate(symbols)}
    for merge in MERGES:
        vocab.setdefault(merge.replace(" ", ""), len(vocab))
    vocab["<|endoftext|>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(MERGES) + "\n",
                                       encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "GPT2Tokenizer", "model_max_length": 1024,
        "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>",
        "unk_token": "<|endoftext|>", "add_prefix_space": False}), encoding="utf-8")
    (folder / "special_tokens_map.json").write_text(json.dumps({
        "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>",
        "unk_token": "<|endoftext|>"}), encoding="utf-8")
    eos = vocab["<|endoftext|>"]
    config = GPT2Config(vocab_size=len(vocab), n_positions=1024, n_embd=hidden,
                        n_layer=layers, n_head=2, bos_token_id=eos, eos_token_id=eos)
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(config)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.2, generator=torch.Generator().manual_seed(seed + p.numel()))
    model.save_pretrained(folder)
    return folder
