"""The tiny random BERT of the PT-M2 tests (tests/test_ptm2.py, tests/data/ptm2_reference.json).

Its weights must be the same wherever the test runs, because the reference
numbers were recorded with them: they are drawn from a seeded
``torch.Generator`` parameter by parameter (sorted names), not by
transformers' initialisers, which may change between versions. The
vocabulary is stored in the fixture, so the model does not depend on the data
either. Needs torch and transformers (the ``neural`` extra).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

SEED = 13
CONFIG = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
          "intermediate_size": 64, "max_position_embeddings": 512}
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def vocabulary(sentences: Sequence[str], size: int = 400) -> list[str]:
    """The special tokens and the ``size`` most frequent lowercased words (ties: first seen)."""
    counts: dict[str, int] = {}
    for s in sentences:
        for w in s.lower().split():
            counts[w] = counts.get(w, 0) + 1
    words = sorted(counts, key=lambda w: -counts[w])[:size]
    return SPECIAL + [w for w in words if w not in SPECIAL]


def tiny_bert(folder: str, vocab: Sequence[str]) -> str:
    """Save a 2-layer, 32-wide BERT with a WordPiece tokenizer over ``vocab`` in ``folder``."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    os.makedirs(folder, exist_ok=True)
    vocab_file = os.path.join(folder, "vocab.txt")
    with open(vocab_file, "w", encoding="utf8") as fh:
        fh.write("\n".join(vocab) + "\n")
    tokenizer = BertTokenizer(vocab_file, do_lower_case=True, model_max_length=512)
    model = BertModel(BertConfig(vocab_size=len(vocab), **CONFIG))
    gen = torch.Generator().manual_seed(SEED)
    state = model.state_dict()
    with torch.no_grad():
        for name in sorted(state):
            tensor = state[name]
            if not tensor.is_floating_point():
                continue
            values = torch.randn(tensor.shape, generator=gen, dtype=torch.float32)
            if name.endswith("LayerNorm.weight"):
                values = 1.0 + 0.1 * values
            else:
                values = 0.2 * values
            tensor.copy_(values)
    model.load_state_dict(state)
    model.eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
