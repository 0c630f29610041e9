"""`gecmetrics list`: the metrics the registry knows."""

from __future__ import annotations

import click

from gecmetrics.interface.commands.common import friendly_errors, out


@click.command("list")
@friendly_errors
def list_cmd() -> None:
    """List every available metric (built-in and plug-in) with one line about it."""
    from gecmetrics.registry import list_metrics

    metrics = list_metrics()
    width = max(map(len, metrics)) if metrics else 0
    for name, text in metrics.items():
        out(f"{name.ljust(width)}  {text}")
