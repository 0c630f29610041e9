"""N-gram multiset intersections, counted once per corpus.

Every n-gram metric here (GREEN, GLEU, chrF) needs, per sentence and per
order n, only a handful of multiset sizes between the source S, each
reference R_k and each hypothesis C:

    |S|, |R_k|, |C|, |S ∩ R_k|, |S ∩ C|, |R_k ∩ C|, |S ∩ R_k ∩ C|,
    and sum over x with m_Rk(x) = 0 of min(m_S(x), m_C(x))  (GLEU's penalty)

where |A ∩ B| = sum_x min(m_A(x), m_B(x)). GREEN's seven Venn regions follow
from these in closed form (inclusion-exclusion holds for multisets under
min/max). Texts are integer-coded once; the source and references of a
sentence are counted once for all systems, and a hypothesis line shared by
several systems (very common: unchanged sentences) is counted once.

The counting runs in a compiled kernel (``gecmetrics._kernel``) when it was
built, and otherwise in :func:`_intersect_python`, which returns the same
integers.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from . import kernels
from .corpus import Corpus
from .errors import ConfigError
from .parallel import chunk_bounds, map_ordered
from .progress import note as write_note
from .tokenizers import (  # noqa: F401  (the names this module has always offered)
    TOKENIZERS,
    WORD_LOCAL,
    Tokenize,
    char_nospace_tokens,
    char_tokens,
    check_line_lengths,
    chrf_word_tokens,
    normalization_note,
    normalizer,
    spec,
    tokenizer,
    word_tokens,
)
from .validate import check_int_option

#: The largest n-gram order any metric here counts (GREEN ``n``, GLEU ``n``, BLEU
#: ``max_ngram_order``, chrF ``char_order``/``word_order``). The papers and official
#: tools use 4 (BLEU, GLEU, GREEN words) to 6 (chrF characters); 100 leaves a wide
#: margin, since an order beyond the longest sentence only adds zero counts.
#: Memory grows linearly with the order (every count array has an order axis):
#: GREEN on 3 CoNLL-2014 systems peaks at 56 MB for n=4, 134 MB for n=128,
#: 696 MB for n=1024 and 2.6 GB (36 s) for n=4096, so an unbounded order (a typo
#: such as n=100000000) would exhaust memory before the first score.
MAX_NGRAM_ORDER = 100


def check_order(value: object, option: str, low: int = 1) -> int:
    """An n-gram order option: an integer from ``low`` to :data:`MAX_NGRAM_ORDER`.

    Every n-gram metric calls it from its config check, so the order is refused
    when the options are parsed, before any file is read.
    """
    return check_int_option(value, option, low, MAX_NGRAM_ORDER,
                            f"{MAX_NGRAM_ORDER} is the largest n-gram order counted "
                            "(the papers use 4 to 6)")

try:  # the compiled speed path; optional by design
    from ._kernel import intersect as _intersect_compiled
except ImportError:  # pragma: no cover - depends on the build
    _intersect_compiled = None
try:  # a kernel built before it had the word numbering leaves that to Python
    from ._kernel import word_ids as _word_ids_compiled
except ImportError:  # pragma: no cover - depends on the build
    _word_ids_compiled = None


def backend_name() -> str:
    """Which counting kernel is in use: ``compiled`` or ``python``.

    The environment variable ``GECMETRICS_KERNEL=python`` forces the pure-Python
    kernel (for benchmarks and debugging); the numbers are the same.
    """
    if kernels.forced_python() or _intersect_compiled is None:
        return "python"
    return "compiled"


@dataclass(frozen=True)
class Intersections:
    """Multiset sizes for every (system h, sentence i, reference k, order n).

    Arrays are signed integers of the smallest type that holds them with
    headroom (:func:`compact_dtype`: int16 for sentences under 8,192 tokens,
    else int32 or int64), since they are what is kept of a large corpus; the
    last axis is the order n = 1..max_n.
    ``src_len`` (D, N), ``ref_len`` (D, K, N), ``hyp_len`` (H, D, N),
    ``sr`` (D, K, N) = |S ∩ R_k|, ``sc`` (H, D, N) = |S ∩ C|,
    ``rc`` (H, D, K, N) = |R_k ∩ C|, ``src`` (H, D, K, N) = |S ∩ R_k ∩ C|,
    ``sc_off_r`` (H, D, K, N) = sum over n-grams absent from R_k of min(m_S, m_C),
    ``rc_max`` (H, D, N) = sum_x min(m_C(x), max_k m_Rk(x)) (BLEU's clipped matches).
    """

    systems: tuple[str, ...]
    max_n: int
    src_len: np.ndarray
    ref_len: np.ndarray
    hyp_len: np.ndarray
    sr: np.ndarray
    sc: np.ndarray
    rc: np.ndarray
    src: np.ndarray
    sc_off_r: np.ndarray
    rc_max: np.ndarray


def intersections(corpus: Corpus, tokenize: str, max_n: int,
                  normalize: str = "none") -> Intersections:
    """The corpus' intersections for ``tokenize`` up to ``max_n``, computed once.

    ``normalize`` (:data:`gecmetrics.tokenizers.NORMALIZATIONS`) puts every text in
    a Unicode normal form first; with ``none`` (the default) the texts are counted
    as read, and a one-line note goes to stderr (once per process) when NFC would
    change what matches (:func:`gecmetrics.tokenizers.normalization_note`).
    A request for a smaller n than already computed reuses the larger result.
    """
    tokenizer(tokenize)  # validate early (and load an optional tokenizer once)
    if normalize != "none":
        corpus = corpus.normalized(normalize, normalizer(normalize))
    else:
        note = corpus.cached(("normalization-note",), lambda: normalization_note(
            corpus.sources, corpus.references, corpus.hypotheses.values()))
        if note is not None and not _NOTED:  # the first only: chunks name other words
            _NOTED.add(note)

            write_note(note)
    cache: dict[int, Intersections] = corpus.cached(("ngram-intersections", tokenize), dict)
    for n_done, result in cache.items():
        if n_done >= max_n:
            return _truncate(result, max_n) if n_done > max_n else result
    result = compute_intersections(
        corpus.sources, corpus.references, corpus.hypotheses, tokenize, max_n
    )
    cache.clear()
    cache[max_n] = result
    return result


#: The normalisation note written by this process, if any (one is enough).
_NOTED: set[str] = set()


def _truncate(full: Intersections, max_n: int) -> Intersections:
    cut = slice(0, max_n)
    return Intersections(
        full.systems, max_n, full.src_len[..., cut], full.ref_len[..., cut],
        full.hyp_len[..., cut], full.sr[..., cut], full.sc[..., cut], full.rc[..., cut],
        full.src[..., cut], full.sc_off_r[..., cut], full.rc_max[..., cut],
    )


def compute_intersections(
    sources: Sequence[str],
    references: Sequence[Sequence[str]],
    hypotheses: Mapping[str, Sequence[str]],
    tokenize: str,
    max_n: int,
    backend: str | None = None,
) -> Intersections:
    """Count the intersections (see :class:`Intersections`) without caching.

    Counted a chunk of sentences at a time, over ``--jobs`` processes
    (:mod:`gecmetrics.parallel`): every count is a property of one sentence, so
    the concatenated chunks equal one whole-corpus count, bit for bit.
    """
    check_order(max_n, "n")
    if backend not in (None, "compiled", "python"):
        raise ConfigError(f"unknown backend {backend!r}; use 'compiled' or 'python'")
    if backend == "compiled" and _intersect_compiled is None:
        raise ConfigError("the compiled kernel is not built; reinstall with a C compiler")

    systems = tuple(hypotheses)
    hyp_lists = [hypotheses[name] for name in systems]
    check_line_lengths(tokenize, [("source", sources),
                                  *((f"reference {k}", ref) for k, ref in
                                    enumerate(references, start=1)),
                                  *((f"hypothesis {name!r}", hyp) for name, hyp in
                                    zip(systems, hyp_lists, strict=True))])
    bounds = chunk_bounds(len(sources))
    tasks = ((sources[a:b], [ref[a:b] for ref in references], systems,
              [hyp[a:b] for hyp in hyp_lists], tokenize, max_n, backend) for a, b in bounds)
    if len(bounds) == 1:
        return _count_chunk(next(tasks))
    return concat_intersections(list(map_ordered(_count_chunk, tasks, work=len(sources))))


def concat_intersections(parts: Sequence[Intersections]) -> Intersections:
    """The intersections of consecutive chunks as one (the sentence axes joined)."""
    first = parts[0]

    def join(name: str, axis: int) -> np.ndarray:
        return np.concatenate([getattr(x, name) for x in parts], axis=axis)

    return Intersections(
        first.systems, first.max_n, join("src_len", 0), join("ref_len", 0),
        join("hyp_len", 1), join("sr", 0), join("sc", 1), join("rc", 1), join("src", 1),
        join("sc_off_r", 1), join("rc_max", 1),
    )


def compact_dtype(largest: int) -> type[np.signedinteger]:
    """The smallest signed integer type for counts of texts of at most ``largest`` tokens.

    Four times the headroom: GREEN's closed forms add and subtract up to four
    counts (and TP adds three regions), so no intermediate can overflow. The
    values are those of int64 arithmetic; numpy sums small integer types in
    int64 and divides them in float64, so every score is unchanged.
    """
    for kind in (np.int16, np.int32):
        if 4 * largest < np.iinfo(kind).max:
            return kind
    return np.int64


def _count_chunk(task: tuple) -> Intersections:
    """One chunk's intersections (a module-level function, so a pool can run it)."""
    sources, references, systems, hyp_lists, tokenize, max_n, backend = task
    num_sent = len(sources)
    num_refs = len(references)
    # Sentence groups: [source, ref_1..ref_K, distinct hypotheses...]
    texts: list[str] = []
    group_start = [0]
    hyp_index: list[int] = []  # text of (sentence i, system h), i-major
    for i, group in enumerate(zip(sources, *references, strict=True)):
        texts += group
        seen: dict[str, int] = {}
        for hyp in hyp_lists:
            line = hyp[i]
            index = seen.get(line)
            if index is None:
                index = seen[line] = len(texts)
                texts.append(line)
            hyp_index.append(index)
        group_start.append(len(texts))
    hyp_text = np.array(hyp_index, dtype=np.int64).reshape(num_sent, len(systems)).T
    use_compiled = backend == "compiled" or (backend is None and backend_name() == "compiled")

    tokens, text_start = encode(texts, tokenize, compiled=use_compiled)
    del texts
    lengths = np.diff(text_start)
    group_arr = np.asarray(group_start, dtype=np.int64)
    num_texts = len(lengths)
    sr = np.zeros((num_sent, num_refs, max_n), dtype=np.int64)
    sc = np.zeros((num_texts, max_n), dtype=np.int64)
    rc = np.zeros((num_texts, num_refs, max_n), dtype=np.int64)
    src = np.zeros((num_texts, num_refs, max_n), dtype=np.int64)
    off = np.zeros((num_texts, num_refs, max_n), dtype=np.int64)
    rmax = np.zeros((num_texts, max_n), dtype=np.int64)
    if _intersect_compiled is None:
        kernels.missing("gecmetrics._kernel")
    if use_compiled:
        _intersect_compiled(
            tokens, text_start, group_arr, num_refs, max_n, sr, sc, rc, src, off, rmax
        )
    else:
        _intersect_python(tokens, text_start, group_arr, num_refs, max_n, sr, sc, rc, src, off,
                          rmax)

    kind = compact_dtype(int(lengths.max()) if len(lengths) else 0)
    orders = np.arange(1, max_n + 1)
    text_ngrams = np.maximum(lengths[:, None] - orders[None, :] + 1, 0).astype(kind)  # (T, N)
    src_index = group_arr[:-1]
    ref_index = src_index[:, None] + 1 + np.arange(num_refs)[None, :]
    return Intersections(
        systems=systems,
        max_n=max_n,
        src_len=text_ngrams[src_index],
        ref_len=text_ngrams[ref_index],
        hyp_len=text_ngrams[hyp_text],
        sr=sr.astype(kind),
        sc=sc.astype(kind)[hyp_text],
        rc=rc.astype(kind)[hyp_text],
        src=src.astype(kind)[hyp_text],
        sc_off_r=off.astype(kind)[hyp_text],
        rc_max=rmax.astype(kind)[hyp_text],
    )


def encode(texts: Sequence[str], tokenize: str,
           compiled: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Integer-code ``texts``: one int64 token array and text start offsets.

    Characters become their code points; words get ids from one vocabulary
    shared by all texts, so equal tokens have equal ids everywhere. ``compiled``:
    whether the kernel may number whitespace words (None: when it is in use,
    :func:`backend_name`); the ids are the same either way.
    """
    lengths: Sequence[int] | np.ndarray
    if tokenize == "char":
        joined = "".join(texts)
        tokens = np.frombuffer(joined.encode("utf-32-le"), dtype="<u4").astype(np.int64)
        lengths = [len(text) for text in texts]
    else:
        tokens, lengths = _encode_words(texts, tokenize,
                                        backend_name() == "compiled" if compiled is None
                                        else compiled)
    text_start = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=text_start[1:])
    return tokens, text_start


def _encode_words(texts: Sequence[str], tokenize: str, compiled: bool
                  ) -> tuple[np.ndarray, Sequence[int] | np.ndarray]:
    """:func:`encode` for a tokenizer of words: the token ids and each text's count."""
    entry = spec(tokenize)
    if entry.whitespace_words is not None and compiled and _word_ids_compiled is not None:
        word, counts, distinct = _word_ids_compiled(entry.whitespace_words(texts))
        if entry.word_local is None:
            return word, counts
        return _word_tokens(word, counts, distinct, entry.word_local[1])
    if entry.word_local is not None:
        return _encode_word_local(texts, *entry.word_local)
    split = tokenizer(tokenize)
    if entry.load is not None:  # an optional, slow tokenizer: each text once
        distinct_texts = {text: split(text) for text in dict.fromkeys(texts)}
        split = distinct_texts.__getitem__
    words = [split(text) for text in texts]
    flat = list(itertools.chain.from_iterable(words))
    vocab = {word: i for i, word in enumerate(dict.fromkeys(flat))}
    tokens = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat))
    return tokens, [len(w) for w in words]


def _encode_word_local(texts: Sequence[str],
                       words_of: Callable[[Sequence[str]], list[list[str]]],
                       split: Callable[[str], list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode` for a tokenizer with a ``word_local`` form: each distinct word split once.

    Equal tokens get equal ids (one vocabulary, as for the other tokenizers); the
    loops over all words run in C (``dict.fromkeys``, ``map``, ``np.fromiter``) and
    numpy expands each word into its tokens (:func:`_word_tokens`), so Python loops
    over distinct words only.
    """
    line_words = words_of(texts)
    distinct = list(dict.fromkeys(itertools.chain.from_iterable(line_words)))
    position = dict(zip(distinct, range(len(distinct)), strict=True))
    num_words = sum(map(len, line_words))
    word = np.fromiter(map(position.__getitem__, itertools.chain.from_iterable(line_words)),
                       dtype=np.int64, count=num_words)  # distinct-word index of each word
    line_counts = np.fromiter(map(len, line_words), dtype=np.int64, count=len(line_words))
    return _word_tokens(word, line_counts, distinct, split)


def _word_tokens(word: np.ndarray, line_counts: np.ndarray, distinct: Sequence[str],
                 split: Callable[[str], list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """The token ids and each line's number of tokens, given each word's index in
    ``distinct`` (``word``), each line's number of words and ``split``, one word's tokens."""
    vocab: dict[str, int] = {}
    pieces = [[vocab.setdefault(token, len(vocab)) for token in split(w)] for w in distinct]
    piece_len = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    piece_tokens = np.fromiter(itertools.chain.from_iterable(pieces), dtype=np.int64,
                               count=int(piece_len.sum()))
    piece_start = np.zeros(len(pieces) + 1, dtype=np.int64)
    np.cumsum(piece_len, out=piece_start[1:])
    num_words = len(word)
    lens = piece_len[word]  # tokens of each word
    token_end = np.zeros(num_words + 1, dtype=np.int64)  # tokens before each word
    np.cumsum(lens, out=token_end[1:])
    # token j of word w is piece_tokens[piece_start[w] + j]
    offset = np.repeat(piece_start[word] - token_end[:-1], lens)
    tokens = piece_tokens[offset + np.arange(int(token_end[-1]), dtype=np.int64)]
    word_start = np.zeros(len(line_counts) + 1, dtype=np.int64)
    np.cumsum(line_counts, out=word_start[1:])
    return tokens, np.diff(token_end[word_start])


def _intersect_python(tokens, text_start, group_start, num_refs, max_n, sr, sc, rc, src, off,
                      rmax):
    """Pure-Python kernel: fill the output arrays in place (same contract as the C one).

    For group g = [S, R_1..R_K, C...] and order n: ``sr[g,k]`` = |S ∩ R_k|;
    for each hypothesis text t: ``sc[t]``, ``rc[t,k]``, ``src[t,k]``, ``off[t,k]``,
    ``rmax[t]``.
    """
    toks = tokens.tolist()
    starts = text_start.tolist()
    for g in range(len(group_start) - 1):
        first, last = int(group_start[g]), int(group_start[g + 1])
        seqs = [tuple(toks[starts[t]:starts[t + 1]]) for t in range(first, last)]
        for n in range(1, max_n + 1):
            bags = [Counter(seq[p:p + n] for p in range(len(seq) - n + 1)) for seq in seqs]
            s_bag, ref_bags = bags[0], bags[1:num_refs + 1]
            for k, r_bag in enumerate(ref_bags):
                sr[g, k, n - 1] = sum(min(c, r_bag[x]) for x, c in s_bag.items() if x in r_bag)
            for j, c_bag in enumerate(bags[num_refs + 1:]):
                t = first + num_refs + 1 + j
                sc[t, n - 1] = sum(min(c, s_bag.get(x, 0)) for x, c in c_bag.items())
                for k, r_bag in enumerate(ref_bags):
                    a_rc = a_src = a_off = 0
                    for x, c in c_bag.items():
                        s = s_bag.get(x, 0)
                        r = r_bag.get(x, 0)
                        a_rc += min(c, r)
                        a_src += min(c, r, s)
                        if r == 0:
                            a_off += min(c, s)
                    rc[t, k, n - 1] = a_rc
                    src[t, k, n - 1] = a_src
                    off[t, k, n - 1] = a_off
                rmax[t, n - 1] = sum(min(c, max((r_bag.get(x, 0) for r_bag in ref_bags),
                                                default=0)) for x, c in c_bag.items())
