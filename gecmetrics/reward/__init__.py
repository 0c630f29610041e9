"""Metric rewards for reinforcement learning (docs/rewards.md).

:class:`Reward` scores (source, completion, references) triples exactly as
``gecmetrics score --level sentence``; :class:`TrlReward` is the TRL reward
function, :func:`gecmetrics.reward.verl.compute_score` verl's.
"""

from .core import Reward, RewardOptions, RewardResult, degenerate_reason
from .trl import TrlReward, completion_text

__all__ = ["Reward", "RewardOptions", "RewardResult", "TrlReward", "completion_text",
           "degenerate_reason"]
