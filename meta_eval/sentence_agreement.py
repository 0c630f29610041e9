"""Sentence-level meta-evaluation over raw pairwise human judgments.

Every ranking item (one annotator ranking up to five outputs of one sentence)
is kept separately, as SEEDA's ``utils/corr_sentence.py`` does. Within an item,
every pair of systems in *different* rank groups is a human comparison (rank 1
is best; systems with the same rank, including several systems listed in one
``system`` attribute because they produced the same text, are not compared).
The metric's sentence scores of the two systems either order them the same way
(concordant) or not (discordant)::

    accuracy     = concordant / total
    kendall_like = (concordant - discordant) / total

A metric tie (equal sentence scores) is handled by ``ties``:

* ``"seeda"`` (default, SEEDA's corr_sentence.py exactly): the tie is read as if
  the system earlier in the ordering (alphabetical, i.e. Python's ``sorted``) had
  the *lower* score; with higher-is-better scores that is a loss for the earlier
  system, with ``higher_is_better=False`` a win;
* ``"discordant"``: a tie counts as a disagreement;
* ``"neutral"``: a tie counts in the total but neither concordant nor discordant
  (it lowers accuracy and adds 0 to the Kendall-like numerator);
* ``"exclude"``: pairs the metric ties are left out of the total.

Inputs are plain: ranking items and a sentence-score lookup, so the same
function serves SEEDA (``src-id`` 1-based in its XML) and GJG15 (0-based); the
judgment reader converts to 0-based sentence indices.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .human import rank_pairs

TIE_POLICIES = ("seeda", "discordant", "neutral", "exclude")

Groups = Sequence[tuple[Any, Any]]


@dataclass(frozen=True)
class PairwiseResult:
    accuracy: float
    kendall_like: float
    n_pairs: int  # comparisons counted in the total
    concordant: int
    discordant: int
    metric_ties: int  # comparisons where the metric gave equal scores (before the policy)
    n_items: int  # ranking items that gave at least one comparison
    ties: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _normalise_item(item: Any) -> tuple[int, list[tuple[int, list[str]]]]:
    """(sentence, [(rank, [systems])]) from a RankingItem-like object or a tuple.

    Accepts objects with ``.sentence`` and ``.groups`` (as in meta_eval.human) or a
    pair ``(sentence, groups)``; each group is ``(rank, names)`` or ``(names, rank)``,
    ``names`` a sequence of system names or one space-separated string.
    """
    if hasattr(item, "sentence") and hasattr(item, "groups"):
        sentence, groups = item.sentence, item.groups
    else:
        sentence, groups = item
    out = []
    for first, second in groups:
        if isinstance(first, int) and not isinstance(second, int):
            rank, names = first, second
        else:
            names, rank = first, second
        if isinstance(names, str):
            names = names.split()
        out.append((int(rank), list(names)))
    return int(sentence), out


def _item_pairs(items: Iterable[Any], keep: set[str] | None) -> list[tuple[int, int, str, str]]:
    """``(item index, sentence, better, worse)`` for every comparison of every item."""
    pairs: list[tuple[int, int, str, str]] = []
    for index, item in enumerate(items):
        sentence, groups = _normalise_item(item)
        pairs.extend((index, sentence, better, worse)
                     for better, worse in rank_pairs(groups, keep))
    return pairs


def human_pairs(
    items: Iterable[Any], systems: Iterable[str] | None = None
) -> list[tuple[int, str, str]]:
    """Every human comparison as ``(sentence, better, worse)``, item by item.

    ``systems`` restricts the comparisons to that system set (others are dropped
    before pairing, as in SEEDA's ``--systems``).
    """
    keep = set(systems) if systems is not None else None
    return [(sentence, a, b) for _, sentence, a, b in _item_pairs(items, keep)]


def pairwise_agreement(
    items: Iterable[Any],
    score: Mapping[str, Any],
    systems: Iterable[str] | None = None,
    ties: str = "seeda",
    higher_is_better: bool = True,
    order: Sequence[str] | None = None,
) -> PairwiseResult:
    """Accuracy and Kendall-like tau of a metric's sentence scores against the
    human pairwise comparisons in ``items``.

    ``score[system][sentence]`` is the metric's score of ``system``'s output of
    0-based ``sentence`` (a list, array or dict per system). ``systems`` is the
    system set (default: every system in the items). ``order`` fixes the order
    used by the ``"seeda"`` tie rule (default: ``sorted`` of the names, which is
    SEEDA's alphabetical list).
    """
    if ties not in TIE_POLICIES:
        raise ValueError(f"unknown tie policy {ties!r}; choose from {', '.join(TIE_POLICIES)}")
    keep = set(systems) if systems is not None else None
    pairs = _item_pairs(items, keep)
    names = sorted({name for _, _, a, b in pairs for name in (a, b)})
    position = {name: i for i, name in enumerate(order if order is not None else names)}
    missing = [name for name in names if name not in position]
    if missing:
        raise ValueError(f"systems {missing} are not in the given order")
    concordant = discordant = metric_ties = total = 0
    for _, sentence, better, worse in pairs:
        try:
            s_better = float(score[better][sentence])
            s_worse = float(score[worse][sentence])
        except (KeyError, IndexError):
            raise ValueError(
                f"no metric score for system {better!r} or {worse!r} on sentence {sentence}"
            ) from None
        if not higher_is_better:
            s_better, s_worse = -s_better, -s_worse
        if s_better == s_worse:
            metric_ties += 1
            if ties == "exclude":
                continue
            total += 1
            if ties == "discordant":
                discordant += 1
            elif ties == "seeda":
                # the earlier system is read as having the lower raw score
                earlier_is_better = position[better] < position[worse]
                earlier_wins = not higher_is_better
                if earlier_is_better == earlier_wins:
                    concordant += 1
                else:
                    discordant += 1
            continue
        total += 1
        if s_better > s_worse:
            concordant += 1
        else:
            discordant += 1
    n_items = len({index for index, *_ in pairs})
    accuracy = concordant / total if total else float("nan")
    kendall_like = (concordant - discordant) / total if total else float("nan")
    return PairwiseResult(accuracy, kendall_like, total, concordant, discordant, metric_ties,
                          n_items, ties)
