"""Prompts and answer parsing of the LLM judge (Kobayashi et al., BEA 2024).

Kobayashi, Mita and Komachi ("Large Language Models Are State-of-the-Art
Evaluator for Grammatical Error Correction", BEA 2024) give an LLM one source
sentence and up to five corrections of it ("targets") and ask for a score from
1 to 5 per target, in a JSON object, the same score allowed more than once; an
optional sentence adds an evaluation criterion (grammaticality, fluency,
meaning preservation; for the edit form, difficulty and impact of the edits).
Targets are shown as corrected sentences (the paper's LLM-S) or as their
ERRANT edits against the source (LLM-E). This is the layout of SEEDA's human evaluation, whose
annotators also saw up to five corrections of one sentence at a time.

The wording here is gecmetrics' own, written from that description (the
paper's appendix and gec-metrics' ``llm_kobayashi24.py`` have the authors'
wording); the structure is the same: task, optional criterion, ``# source``,
``# targets``, ``# output format`` with the JSON keys ``target{i}_score``.
Two deliberate differences, both in docs/metrics/llm-judge.md: targets are
numbered (``target1: ...``), and the format block lists the exact keys for the
number of targets instead of an ellipsis, so that the answer can be checked.

:data:`TEMPLATE_VERSION` names this wording and the parsing rules; it is part of
every cache key, so a change of either can never reuse stale answers. Bump it
whenever a byte of a prompt or a parsing rule changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from gecmetrics.errors import GecMetricsError

#: Version of the prompt wording and the parsing rules (in every cache key).
TEMPLATE_VERSION = "kobayashi24-gecmetrics-1"

#: The score range the prompt asks for.
LOWEST, HIGHEST = 1, 5

#: The extra sentence for each criterion (``none``: the plain prompt).
CRITERIA: dict[str, str] = {
    "none": "",
    "grammaticality": "Judge the targets above all by their grammaticality.",
    "fluency": "Judge the targets above all by how fluent and natural they read.",
    "meaning": "Judge the targets above all by how well they keep the meaning of the source.",
    "difficulty": "Judge the edits of each target above all by how hard they are to make.",
    "impact": "Judge the edits of each target above all by how much they change the sentence.",
}

#: How a target is shown: the corrected sentence (the paper's LLM-S) or its
#: ERRANT edits against the source (LLM-E, :func:`edit_target`).
FORMS = ("sentence", "edits")

_TASK = (
    "Your task is to rank corrections of a sentence by their quality.\n"
    "Read the source sentence and the corrected sentences (targets), then give every "
    f"target a score from {LOWEST} (worst) to {HIGHEST} (best) for the quality of the "
    "corrected sentence. Two or more targets may get the same score."
)


_EDITS = (
    "Each target is shown as its edits to the source: [old→new] replaces old with new, "
    "[→new] inserts new, [old→] deletes old. A target without edits "
    f"(shown as {{none}}) gets {HIGHEST} if the source is correct and {LOWEST} if it "
    "has an error."
)

#: How a target without edits is shown in the edit form.
NO_EDITS = "(no edits)"


def edit_target(source: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """A target in the edit form: ``[old→new]`` per edit (source token spans), in order."""
    tokens = source.split()
    shown = [f"[{' '.join(tokens[start:end])}→{correction}]" for start, end, correction in edits]
    return " ".join(shown) if shown else NO_EDITS


class UnparsableAnswer(GecMetricsError):
    """The model's answer does not hold one score in range for every target."""


def build_prompt(source: str, targets: Sequence[str], criterion: str = "none",
                 form: str = "sentence") -> str:
    """The user message asking for a 1-5 score for each of ``targets``.

    ``form="edits"``: the targets are edit sequences (:func:`edit_target`) and
    the task explains the notation.
    """
    if not targets:
        raise ValueError("build_prompt needs at least one target")
    task = _TASK + (f"\n{_EDITS.format(none=NO_EDITS)}" if form == "edits" else "")
    task += f"\n{CRITERIA[criterion]}" if CRITERIA[criterion] else ""
    listed = "\n".join(f"target{i}: {t}" for i, t in enumerate(targets, 1))
    keys = ", ".join(f'"target{i}_score": <integer {LOWEST}-{HIGHEST}>'
                     for i in range(1, len(targets) + 1))
    return (f"{task}\n\n# source\n{source}\n\n# targets\n{listed}\n\n# output format\n"
            "Answer with a markdown code block that holds only this JSON object, starting "
            'with "```json" and ending with "```":\n'
            f"```json\n{{{keys}}}\n```\n")


def group_targets(hypotheses: Sequence[str], group_size: int) -> list[list[str]]:
    """The distinct ``hypotheses`` of one sentence, sorted, in prompts of ``group_size``.

    Sorting makes the prompt independent of the order of the systems (as
    gec-metrics does, so for up to ``group_size`` distinct hypotheses both send
    the same targets in the same order); every distinct hypothesis is scored,
    so systems with the same output get the same score.
    """
    distinct = sorted(set(hypotheses))
    return [distinct[i:i + group_size] for i in range(0, len(distinct), group_size)]


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _objects(text: str) -> list[dict]:
    """JSON objects in ``text``: fenced blocks first, then any ``{...}`` in the text."""
    found: list[dict] = []
    decoder = json.JSONDecoder()
    for chunk in [m.group(1) for m in _FENCE.finditer(text)] + [text]:
        start = chunk.find("{")
        while start != -1:
            try:
                value, _ = decoder.raw_decode(chunk, start)
            except ValueError:
                value = None
            if isinstance(value, dict):
                found.append(value)
            start = chunk.find("{", start + 1)
    return found


def _score(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        out = value
    elif isinstance(value, float) and value.is_integer():
        out = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        out = int(value.strip())
    else:
        return None
    return out if LOWEST <= out <= HIGHEST else None


def read_target_scores(obj: dict, n: int) -> list[int] | None:
    """The ``n`` scores of a decoded answer, or None unless it has exactly those.

    Keys ``target{i}_score`` (what the prompt asks for) or ``target_score{i}``
    (the field names of gec-metrics' structured outputs); each value an integer
    from 1 to 5 (an integral float or a digit string is read as that integer);
    no score for a target that was not asked about.
    """
    scores: list[int] = []
    for i in range(1, n + 1):
        keys = [k for k in (f"target{i}_score", f"target_score{i}") if k in obj]
        if len(keys) != 1:
            return None
        value = _score(obj[keys[0]])
        if value is None:
            return None
        scores.append(value)
    extra = [k for k in obj if re.fullmatch(r"target(\d+)_score|target_score(\d+)", str(k))
             and int(re.sub(r"\D", "", str(k))) > n]
    return None if extra else scores


def parse_answer(text: str, n: int, where: str) -> list[int]:
    """The ``n`` scores in the model's answer ``text``; one-line error if there are none.

    The first JSON object (in a fenced block, else anywhere) that holds exactly
    the ``n`` scores wins. Nothing is guessed: an answer without one is an
    :class:`UnparsableAnswer` naming ``where`` (the sentence), what the model
    said and what was expected, never a default score.
    """
    for obj in _objects(text):
        scores = read_target_scores(obj, n)
        if scores is not None:
            return scores
    said = " ".join(text.split())
    said = said if len(said) <= 160 else said[:157] + "..."
    keys = ", ".join(f'"target{i}_score"' for i in range(1, n + 1))
    raise UnparsableAnswer(
        f"llm-judge: {where}: the model's answer {said!r} is not a JSON object with "
        f"{keys} (each an integer {LOWEST}-{HIGHEST}); use a stronger model, or check "
        "the endpoint's model and max_tokens (the answer may be cut off)")
