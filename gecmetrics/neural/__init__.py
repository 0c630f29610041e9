"""Shared machinery of the model-based metrics (the optional ``neural`` extra).

SOME, IMPARA, the Scribendi Score, PT-M2/PT-ERRANT and the LLM judges all need
the same few things, and each lives here once:

* :mod:`.extra`: :func:`~.extra.require_torch` / :func:`~.extra.require_transformers`,
  the one-line error when the extra is not installed;
* :mod:`.device`: :func:`~.device.resolve_device` (``auto|cpu|cuda|cuda:N``);
* :mod:`.models`: :class:`~.models.ModelRef` (a hub id + revision or a local
  folder, with a content identity for the cache) and the fp32, eval-mode,
  offline-first loaders;
* :mod:`.cache`: :class:`~.cache.OutputCache`, model outputs on disk per
  (model identity, options, input text), so reruns and meta-evaluation
  sweeps never run a model twice; :func:`~.cache.cache_key` builds the keys;
* :mod:`.batching`: :func:`~.batching.run_batched`, cache first, the model
  on the misses only, in batches, with a progress bar on stderr.

Nothing here imports torch or transformers at import time: ``gecmetrics
--help`` and the classic metrics stay light. The heavy modules are imported
inside the functions that need them, through :mod:`.extra`.
"""
