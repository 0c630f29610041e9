"""A :class:`~gecmetrics.reward.core.Reward` in TRL's calling convention.

TRL (``GRPOTrainer(reward_funcs=[...])``) calls a reward function as
``f(prompts=..., completions=..., completion_ids=..., **columns)``: every dataset
column but the prompt, one value per completion, plus its own keyword arguments
(``trainer_state``, ``log_metric``, ...). :class:`TrlReward` takes the source and
the references from named columns; a completion is a string or, in the
conversational format, a list of chat messages whose last one's ``content`` is the
text. Nothing of TRL is imported: the convention is a plain call (verl's is in
:mod:`gecmetrics.reward.verl`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError, InputError
from ..formatting import short_repr
from .core import Reward, RewardResult


def completion_text(completion: Any) -> Any:
    """The text of one completion: a string as is; a list of chat messages, the last
    message's ``content`` (None when it has none, so it is scored as not text)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content")
        if isinstance(content, list):  # multimodal: the text parts joined
            parts = [p.get("text") for p in content if isinstance(p, dict)]
            return "".join(p for p in parts if isinstance(p, str)) if parts else None
        return content
    return None


class TrlReward:
    """TRL's reward-function convention over a :class:`Reward` (or a metric spec).

    ``source_column`` and ``references_column`` (None for a reference-free metric)
    name dataset columns; ``columns`` (optional: the dataset's column names, e.g.
    ``dataset.column_names``) lets a wrong name fail here, at construction, rather
    than at the first step. ``last`` is the :class:`RewardResult` of the latest call
    (its ``degenerate`` mask). ``__name__`` is what TRL logs the reward as.
    """

    def __init__(self, reward: Reward | str, source_column: str = "source",
                 references_column: str | None = "references",
                 columns: Sequence[str] | None = None) -> None:
        if isinstance(reward, str):
            reward = Reward(reward)
        if not isinstance(reward, Reward):
            raise ConfigError(f"TrlReward needs a Reward or a metric spec (got "
                              f"{type(reward).__name__})")
        if not isinstance(source_column, str) or not source_column:
            raise ConfigError(f"source_column must name a dataset column (got "
                              f"{short_repr(source_column)})")
        if references_column is None and not reward.reference_free:
            raise ConfigError(f"metric {reward.metrics[0].spec!r} needs references: give "
                              "references_column, the dataset column that holds them")
        self.reward = reward
        self.source_column = source_column
        self.references_column = references_column
        self.__name__ = "gecmetrics_" + reward.name.replace(":", "_").replace(",", "_")
        self.last: RewardResult | None = None
        if columns is not None:
            self._check_columns(list(columns))

    def _check_columns(self, present: list[str]) -> None:
        for role, name in (("source_column", self.source_column),
                           ("references_column", self.references_column)):
            if name is not None and name not in present:
                raise ConfigError(f"{role} {name!r} is not a dataset column; the columns are: "
                                  f"{', '.join(map(str, present)) or '(none)'}")

    def __call__(self, prompts: Sequence[Any] | None = None,
                 completions: Sequence[Any] | None = None, **columns: Any) -> list[float]:
        if completions is None:
            raise InputError("the reward was called without completions=")
        wanted = [self.source_column] + ([self.references_column]
                                         if self.references_column is not None else [])
        missing = [name for name in wanted if name not in columns]
        if missing:
            self._check_columns([k for k, v in columns.items() if isinstance(v, list)])
        if prompts is not None and len(prompts) != len(completions):
            raise InputError(f"{len(prompts)} prompts for {len(completions)} completions; "
                             "give one prompt per completion")
        sources = columns[self.source_column]
        refs = columns[self.references_column] if self.references_column is not None else None
        result = self.reward.evaluate(sources, [completion_text(c) for c in completions], refs)
        self.last = result
        return list(result.rewards)
