"""The built-in metrics' descriptions, derived from their sources by
``python docs/generate/make_descriptions.py``
(:func:`gecmetrics.descriptions.table_source`); do not edit:
tests/test_registry_descriptions.py keeps this file equal to the sources."""
# ruff: noqa: E501

#: The tokenizer registry's names when the table was derived.
TOKENIZERS = ('word', 'char', '13a', 'intl', 'char-nospace', 'chrf-word', 'ja', 'ko', 'zh', 'zh-char')

#: ``BUILTIN`` name -> description.
DESCRIPTIONS = {
    'bleu': 'BLEU (Papineni et al. 2002) as sacrebleu computes it; tokenize=13a|none|intl|char|ja|ko|zh|zh-char (docs/tokenizers.md), smooth_method=exp|floor|add-k|none, smooth_value, lowercase, max_ngram_order (4), effective_order (corpus no, sentence yes), normalize=none|nfc|nfkc',
    'chrf': 'chrF / chrF++ character n-gram F-score (Popovic 2015, 2017) as in sacrebleu; char_order (6), word_order (0; 2 = chrF++), beta (2.0), lowercase, whitespace, eps_smoothing, normalize=none|nfc|nfkc',
    'cleme': 'CLEME chunk-level F-score (Ye et al. 2023; THUKElab/CLEME); --m2 or -r; beta (0.5), variant (dependent|independent), weighting (length|none), model, references, max_tokens; needs the errant extra',
    'cleme2': 'CLEME2.0 chunk-level hit/wrong/under/over-correction score (Ye et al. 2024; THUKElab/CLEME); --m2 or -r; variant, weighting (none|length), hit/wrong/under/over factors (0.45/0.35/0.15/0.05); needs the errant extra',
    'errant': 'ERRANT span-based correction F-score (Bryant et al. 2017; errant 3.0.2 errant_compare); --m2 or -r; beta (0.5), model (spaCy pipeline), references (auto|m2|text), max_tokens (300: pairs of up to 300 x 300 tokens are aligned); needs the errant extra',
    'gleu': 'GLEU n-gram precision with source penalty (Napoles et al. 2015/2016); tokenize=word|char|13a|intl|ja|ko|zh|zh-char (docs/tokenizers.md), n (4), variant=official|paper, mode=sampling|max, iterations (500), seed (official), normalize=none|nfc|nfkc',
    'gotoscorer': 'GoToScorer difficulty-weighted F-score (Gotou et al. 2020; weights from the systems scored together); --m2 or -r; beta (0.5), weights (paper|gec-metrics|none), scoring (gts|gec-metrics), references (auto|m2|text), ref_id (0), weight_file; needs the errant extra',
    'green': 'GREEN n-gram F-score (Koyama et al. 2024); tokenize=word|char|13a|intl|ja|ko|zh|zh-char (docs/tokenizers.md), n (4), beta (2.0), normalize=none|nfc|nfkc',
    'imeasure': 'I-measure: improvement in weighted accuracy over the source (Felice & Briscoe 2015; official ieval.py, exact); needs --m2; weight (2), mix (true), max_references (4096)',
    'impara': 'IMPARA: BERT quality estimate gated by source similarity, reference-free (Maeda et al. 2022; neural extra)',
    'llm-judge': 'LLM judge (Kobayashi et al. 2024): an OpenAI-compatible endpoint or a local model scores each correction 1-5; reference-free',
    'm2': 'M2 MaxMatch edit F-score (Dahlmeier & Ng 2012; official CoNLL-2014 scorer, exact); needs --m2; beta (0.5), max_unchanged_words (2), ignore_whitespace_casing, max_lattice_edges (3e7)',
    'pterrant': "PT-ERRANT: ERRANT edits weighted by BERTScore (Gong et al. 2022; needs the errant and neural extras); model (bert-base-uncased), layer, beta (0.5), spacy, device, batch_size, cache; --level mean is the authors' senterrant",
    'ptm2': "PT-M2: M2 edits weighted by BERTScore (Gong et al. 2022; needs --m2 and the neural extra); model (bert-base-uncased), layer, beta (0.5), device, batch_size, cache, edits (m2|neutral: gold edits from -r in any language, with a BERT for it); --level mean is the authors' recommended sentm2",
    'scribendi': 'Scribendi Score: LM perplexity drop with token-sort and Levenshtein ratio checks, reference-free (Islam and Magnani 2021; neural extra)',
    'some': 'SOME: grammaticality, fluency and meaning BERT regressors, reference-free (Yoshimura et al. 2020; neural extra)',
}
