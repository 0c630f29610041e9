"""Human rankings: relative-ranking judgments (Appraise XML) and Expected Wins.

A judgment file holds ``ranking-item`` elements; each ranks up to five
outputs of one source sentence (1 = best)::

    <ranking-item src-id="135" user="annotator01" ...>
      <translation rank="3" system="CAMB"/>
      <translation rank="1" system="IITB INPUT IPN"/>   <- same output, one rank
    </ranking-item>

A ``system`` attribute may list several systems that produced the same text;
they share the rank. Every item is expanded into pairwise comparisons of
systems in different rank groups (the better rank wins); pairs with equal
rank are ties and are dropped.

Expected Wins (Bojar et al., 2013; used for GEC by Grundkiewicz et al., 2015)::

    EW(i) = 1 / (|S| - 1) * sum_{j != i, w_ij + w_ji > 0} w_ij / (w_ij + w_ji)

where w_ij counts the comparisons i won against j.

``src-id`` is 0-based in GJG15's file and 1-based in SEEDA's; readers take
the base and store 0-based sentence indices.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass

from gecmetrics.errors import InputError
from gecmetrics.formatting import plural
from gecmetrics.readers import read_lines


@dataclass(frozen=True)
class RankingItem:
    """One human ranking of several outputs of one sentence."""

    sentence: int  # 0-based position in the test set
    user: str
    groups: tuple[tuple[int, tuple[str, ...]], ...]  # (rank, systems sharing that output)

    @property
    def systems(self) -> list[str]:
        return [name for _, names in self.groups for name in names]


def read_judgments(path: str | os.PathLike[str], src_id_base: int = 0, *,
                   sentence_attribute: str = "src-id",
                   separator: str | None = None) -> list[RankingItem]:
    """Parse an Appraise ranking XML file; ``src_id_base`` is 0 (GJG15) or 1 (SEEDA).

    ``sentence_attribute`` names the item's sentence number (``src-id``; Napoles
    et al. 2015's file has ``id``), ``separator`` splits a ``system`` attribute
    naming several systems (whitespace; Napoles et al. 2015: ``,``).
    """
    import xml.etree.ElementTree as ET

    path = os.fspath(path)
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise InputError(f"judgment file not found: {path}") from None
    except ET.ParseError as err:
        raise InputError(f"{path}: not a valid judgment XML file ({err})") from None
    items = []
    for node in root.iter("ranking-item"):
        try:
            sentence = int(node.attrib[sentence_attribute]) - src_id_base
            groups = tuple(
                (int(t.attrib["rank"]), tuple(t.attrib["system"].split(separator)))
                for t in node.iter("translation")
            )
        except (KeyError, ValueError):
            raise InputError(
                f"{path}: ranking-item id={node.attrib.get('id')!r} lacks a valid "
                f"{sentence_attribute}, "
                "rank or system attribute"
            ) from None
        items.append(RankingItem(sentence, node.attrib.get("user", ""), groups))
    if not items:
        raise InputError(f"{path}: no ranking-item found; is this an Appraise judgment file?")
    return items


def rank_pairs(groups: Iterable[tuple[int, Iterable[str]]],
               keep: Container[str] | None = None) -> list[tuple[str, str]]:
    """The pairwise comparisons of one ranking item, as ``(better, worse)`` names.

    ``groups`` are ``(rank, names)`` (1 = best). Every system is compared with every
    system of a worse rank; systems of equal rank (several groups may share a rank,
    and one group may name several systems) are ties and give no pair, and a name
    is never compared with itself. ``keep`` drops systems outside it *before*
    pairing. Order: better rank first, then the order of the groups and names, so
    the output is deterministic. This is the one expansion of rankings into pairs:
    Expected Wins (:func:`pairwise_wins`) and the sentence-level agreement of
    :mod:`.sentence_agreement` both use it.
    """
    return [(better, worse) for _, _, better, worse in ranked_pairs(groups, keep)]


def ranked_pairs(groups: Iterable[tuple[int, Iterable[str]]],
                 keep: Container[str] | None = None) -> list[tuple[int, int, str, str]]:
    """:func:`rank_pairs` with the ranks the item gave: ``(better_rank, worse_rank,
    better, worse)``, in the same order (``--rank-pairs-by judgment`` groups by them)."""
    by_rank: dict[int, list[str]] = defaultdict(list)
    for rank, names in groups:
        by_rank[int(rank)].extend(name for name in names if keep is None or name in keep)
    ranks = sorted(by_rank)
    return [(better_rank, worse_rank, better, worse)
            for i, better_rank in enumerate(ranks)
            for worse_rank in ranks[i + 1:]
            for better in by_rank[better_rank]
            for worse in by_rank[worse_rank]
            if better != worse]


def pairwise_wins(items: Iterable[RankingItem]) -> dict[tuple[str, str], int]:
    """``wins[(a, b)]``: how many times ``a`` was ranked better than ``b``."""
    wins: dict[tuple[str, str], int] = defaultdict(int)
    for item in items:
        for pair in rank_pairs(item.groups):
            wins[pair] += 1
    return dict(wins)


def expected_wins(items: Iterable[RankingItem],
                  systems: Sequence[str] | None = None) -> dict[str, float]:
    """Expected Wins of every system (default: every system named in ``items``).

    ``systems`` fixes S; comparisons with systems outside S are ignored.
    """
    items = list(items)
    if systems is None:
        systems = sorted({name for item in items for name in item.systems})
    if len(systems) < 2:
        raise InputError("Expected Wins needs at least two systems")
    wins = pairwise_wins(items)
    out = {}
    for i in systems:
        total = 0.0
        for j in systems:
            if i == j:
                continue
            w_ij, w_ji = wins.get((i, j), 0), wins.get((j, i), 0)
            if w_ij + w_ji > 0:
                total += w_ij / (w_ij + w_ji)
        out[i] = total / (len(systems) - 1)
    return out


def read_score_lines(path: str | os.PathLike[str], systems: Sequence[str]) -> dict[str, float]:
    """A file of one score a line, in the order of ``systems`` (SEEDA's human scores)."""
    lines = [line for line in read_lines(path, "human score") if line.strip()]
    if len(lines) != len(systems):
        raise InputError(
            f"{path} has {plural(len(lines), 'score')} but {len(systems)} systems are expected"
        )
    try:
        return {name: float(line) for name, line in zip(systems, lines, strict=True)}
    except ValueError:
        raise InputError(f"{path}: every line must be one number") from None
