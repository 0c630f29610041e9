"""verl's custom reward convention: ``compute_score(data_source, solution_str,
ground_truth, extra_info)``.

Point verl at this file and name the function (docs/rewards.md)::

    custom_reward_function.path=<site-packages>/gecmetrics/reward/verl.py
    custom_reward_function.name=compute_score
    +custom_reward_function.reward_kwargs.metric=gleu

``ground_truth`` holds the references (a string or a list), ``extra_info[source_key]``
the source. verl's ``reward_kwargs`` reach the function as keyword arguments
(``metric``, ``source_key``); the reward of each spec is made once per process
and kept, with its cache of scored triples.
"""

from __future__ import annotations

import functools
from typing import Any

from ..errors import InputError
from ..formatting import short_repr
from .core import Reward


@functools.lru_cache(maxsize=16)
def reward_for(metric: str) -> Reward:
    """The process's reward of ``metric`` (a spec, or specs joined by ``+``), made once."""
    return Reward(metric.split("+") if "+" in metric else metric)


def compute_score(data_source: Any, solution_str: Any, ground_truth: Any,
                  extra_info: dict[str, Any] | None = None, metric: str = "gleu",
                  source_key: str = "source") -> float:
    """The reward of ``solution_str`` as a correction of ``extra_info[source_key]``
    against the references ``ground_truth``; ``data_source`` is not read."""
    reward = reward_for(metric)
    if not isinstance(extra_info, dict) or source_key not in extra_info:
        raise InputError(f"verl extra_info has no {source_key!r} (got "
                         f"{short_repr(extra_info)}); store each sample's source sentence "
                         f"there, or name its key with reward_kwargs.source_key")
    refs = None if reward.reference_free else [ground_truth]
    return reward.score([extra_info[source_key]], [solution_str], refs)[0]
