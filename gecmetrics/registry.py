"""Metric registry: built-ins by name, third-party metrics by entry point.

A new built-in metric is one module in ``metrics/`` plus one line in
``BUILTIN``. Other packages add metrics without touching gecmetrics by
declaring an entry point in the group ``gecmetrics.metrics``::

    [project.entry-points."gecmetrics.metrics"]
    mymetric = "mypackage.module:MyMetric"

where ``MyMetric`` subclasses :class:`gecmetrics.metric.Metric`. Modules are
imported only when a metric is asked for, so the CLI starts fast; even
``gecmetrics list`` imports none of the built-in ones (nor numpy): each built-in
entry declares its one-line description here (:data:`DESCRIPTIONS`), and a test
checks it equal to the class's own ``description``, so the two cannot drift.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import ConfigError

if TYPE_CHECKING:
    from .metric import Metric

ENTRY_POINT_GROUP = "gecmetrics.metrics"

BUILTIN: dict[str, str] = {
    "green": "gecmetrics.metrics.green:Green",
    "gleu": "gecmetrics.metrics.gleu:Gleu",
    "chrf": "gecmetrics.metrics.chrf:Chrf",
    "m2": "gecmetrics.metrics.m2:M2",
    "errant": "gecmetrics.metrics.errant:Errant",
    "bleu": "gecmetrics.metrics.bleu:Bleu",
    "imeasure": "gecmetrics.metrics.imeasure:Imeasure",
    "gotoscorer": "gecmetrics.metrics.gotoscorer:GoToScorer",
    "cleme": "gecmetrics.metrics.cleme:Cleme",
    "cleme2": "gecmetrics.metrics.cleme:Cleme2",
    "some": "gecmetrics.metrics.some:Some",
    "impara": "gecmetrics.metrics.impara:Impara",
    "scribendi": "gecmetrics.metrics.scribendi:Scribendi",
    "ptm2": "gecmetrics.metrics.ptm2:PTM2",
    "pterrant": "gecmetrics.metrics.pterrant:PTErrant",
    "llm-judge": "gecmetrics.metrics.llm_judge:LlmJudge",
}

#: What ``gecmetrics list`` prints for each built-in metric: its class's
#: ``description`` (the name, what it computes, its options with their defaults,
#: the extras it needs), declared again here so that listing imports no metric
#: module. tests/test_registry_descriptions.py checks every one equal to the
#: class's; a new built-in adds its line here with its line in BUILTIN.
DESCRIPTIONS: dict[str, str] = {
    "green": "GREEN n-gram F-score (Koyama et al. 2024); "
             "tokenize=word|char|13a|intl|ja|ko|zh|zh-char (docs/tokenizers.md), n (4), beta "
             "(2.0), normalize=none|nfc|nfkc",
    "gleu": "GLEU n-gram precision with source penalty (Napoles et al. 2015/2016); "
            "tokenize=word|char|13a|intl|ja|ko|zh|zh-char (docs/tokenizers.md), n (4), "
            "variant=official|paper, mode=sampling|max, iterations (500), seed (official), "
            "normalize=none|nfc|nfkc",
    "chrf": "chrF / chrF++ character n-gram F-score (Popovic 2015, 2017) as in sacrebleu; "
            "char_order (6), word_order (0; 2 = chrF++), beta (2.0), lowercase, whitespace, "
            "eps_smoothing, normalize=none|nfc|nfkc",
    "m2": "M2 MaxMatch edit F-score (Dahlmeier & Ng 2012; official CoNLL-2014 scorer, exact); "
          "needs --m2; beta (0.5), max_unchanged_words (2), ignore_whitespace_casing, "
          "max_lattice_edges (3e7)",
    "errant": "ERRANT span-based correction F-score (Bryant et al. 2017; errant 3.0.2 "
              "errant_compare); --m2 or -r; beta (0.5), model (spaCy pipeline), "
              "references (auto|m2|text), max_tokens (300: pairs of up to 300 x 300 tokens "
              "are aligned); needs the errant extra",
    "bleu": "BLEU (Papineni et al. 2002) as sacrebleu computes it; "
            "tokenize=13a|none|intl|char|ja|ko|zh|zh-char (docs/tokenizers.md), "
            "smooth_method=exp|floor|add-k|none, smooth_value, lowercase, max_ngram_order "
            "(4), effective_order (corpus no, sentence yes), normalize=none|nfc|nfkc",
    "imeasure": "I-measure: improvement in weighted accuracy over the source (Felice & Briscoe "
                "2015; official ieval.py, exact); needs --m2; weight (2), mix (true), "
                "max_references (4096)",
    "gotoscorer": "GoToScorer difficulty-weighted F-score (Gotou et al. 2020; weights from the "
                  "systems scored together); --m2 or -r; beta (0.5), weights "
                  "(paper|gec-metrics|none), scoring (gts|gec-metrics), references "
                  "(auto|m2|text), ref_id (0), weight_file; needs the errant extra",
    "cleme": "CLEME chunk-level F-score (Ye et al. 2023; THUKElab/CLEME); --m2 or -r; beta "
             "(0.5), variant (dependent|independent), weighting (length|none), model, "
             "references, max_tokens; needs the errant extra",
    "cleme2": "CLEME2.0 chunk-level hit/wrong/under/over-correction score (Ye et al. 2024; "
              "THUKElab/CLEME); --m2 or -r; variant, weighting (none|length), "
              "hit/wrong/under/over factors (0.45/0.35/0.15/0.05); needs the errant extra",
    "some": "SOME: grammaticality, fluency and meaning BERT regressors, reference-free "
            "(Yoshimura et al. 2020; neural extra)",
    "impara": "IMPARA: BERT quality estimate gated by source similarity, reference-free "
              "(Maeda et al. 2022; neural extra)",
    "scribendi": "Scribendi Score: LM perplexity drop with token-sort and Levenshtein ratio "
                 "checks, reference-free (Islam and Magnani 2021; neural extra)",
    "ptm2": "PT-M2: M2 edits weighted by BERTScore (Gong et al. 2022; needs --m2 and the "
            "neural extra); model (bert-base-uncased), layer, beta (0.5), device, batch_size, "
            "cache, edits (m2|neutral: gold edits from -r in any language, with a BERT for it); "
            "--level mean is the authors' recommended sentm2",
    "pterrant": "PT-ERRANT: ERRANT edits weighted by BERTScore (Gong et al. 2022; needs the "
                "errant and neural extras); model (bert-base-uncased), layer, beta (0.5), "
                "spacy, device, batch_size, cache; --level mean is the authors' senterrant",
    "llm-judge": "LLM judge (Kobayashi et al. 2024): an OpenAI-compatible endpoint or a local "
                 "model scores each correction 1-5; reference-free",
}
assert DESCRIPTIONS.keys() == BUILTIN.keys()

_registered: dict[str, type[Metric] | str] = {}


def register_metric(name: str, metric: type[Metric] | str) -> None:
    """Register a metric class (or a ``module:Class`` path) under ``name``."""
    _registered[name] = metric


def _entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _known() -> dict[str, Any]:
    known: dict[str, Any] = dict(_entry_points())
    known.update(BUILTIN)
    known.update(_registered)
    return known


def _load(name: str, target: Any) -> type[Metric]:
    from .metric import Metric

    if isinstance(target, type):
        cls = target
    elif isinstance(target, str):
        module, _, attr = target.partition(":")
        cls = getattr(importlib.import_module(module), attr)
    else:  # an importlib.metadata.EntryPoint
        try:
            cls = target.load()
        except Exception as err:  # a broken plugin must not break the others
            raise ConfigError(f"metric plugin {name!r} failed to load: {err}") from None
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise ConfigError(f"metric {name!r} does not point to a gecmetrics Metric class")
    return cls


def metric_class(name: str) -> type[Metric]:
    known = _known()
    if name not in known:
        raise ConfigError(
            f"unknown metric {name!r}; known metrics: {', '.join(sorted(known))} "
            "(`gecmetrics list` describes them)"
        )
    return _load(name, known[name])


def get_metric(name: str, **options: Any) -> Metric:
    """Make a metric by name, e.g. ``get_metric("green", tokenize="char", n=6)``."""
    return metric_class(name)(**options)


def list_metrics() -> dict[str, str]:
    """Every metric name with its one-line description.

    A built-in metric (not replaced by :func:`register_metric`) is described from
    :data:`DESCRIPTIONS`, without importing its module; the others are loaded.
    """
    out = {}
    for name, target in sorted(_known().items()):
        if name in BUILTIN and target == BUILTIN[name]:
            out[name] = DESCRIPTIONS[name]
            continue
        try:
            out[name] = _load(name, target).description
        except ConfigError as err:
            out[name] = f"(unavailable: {err})"
    return out


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` into the name and string options."""
    name, _, rest = spec.strip().partition(":")
    if not name:
        raise ConfigError(f"empty metric name in spec {spec!r}; write e.g. green:tokenize=char")
    options: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ConfigError(
                f"bad option {part!r} in metric spec {spec!r}; write key=value, e.g. n=6"
            )
        key = key.strip()
        if key in options:  # silently keeping one of two values would hide a typo
            raise ConfigError(f"option {key!r} is given twice in metric spec {spec!r}; "
                              "give each option once")
        options[key] = value.strip()
    return name, options


def metric_from_spec(spec: str) -> Metric:
    name, options = parse_spec(spec)
    return get_metric(name, **options)
