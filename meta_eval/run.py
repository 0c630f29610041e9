"""``gecmetrics meta-eval`` as one call: options in, formatted output and notes out.

Kept for callers of the former entry point (``run_meta_eval(benchmarks, specs,
..., fmt=...)``); it is now :class:`~.options.MetaEvalOptions` + :func:`.api.run`
+ a renderer of :mod:`.report`, as the CLI is. New code: :func:`gecmetrics.meta_evaluate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gecmetrics.metric import Metric

from .options import MetaEvalOptions


def run_meta_eval(benchmarks: Sequence[str], specs: Sequence[str] = (),
                  fmt: str = "table", scores: Sequence[Metric | str] = (),
                  **options: Any) -> tuple[str, list[str]]:
    """Return the formatted output and the notes for stderr.

    ``options``: the fields of :class:`MetaEvalOptions` (``system_set``, ``levels``,
    ``grid``, ``bootstrap`` ...); ``scores``: metrics made from given scores
    (:mod:`.score_files`, ``--scores``), evaluated after the ``specs`` metrics.
    As before, options are not checked for being given explicitly (the CLI does that).
    """
    opts = MetaEvalOptions(benchmarks=tuple(benchmarks), metrics=tuple(specs),
                           scores=tuple(scores),
                           **{k: v for k, v in options.items() if v is not None})
    return render_options(opts, fmt)


def render_options(options: MetaEvalOptions, fmt: str,
                   option_notes: bool = True) -> tuple[str, list[str]]:
    """Run ``options``, render the result in ``fmt``, then save the figures asked for
    (a figure that cannot be saved still lets the caller print the results).

    ``option_notes=False``: leave out ``options.notes`` (the CLI prints them before
    the work, so that they are seen even if reading the data fails).
    """
    from .api import run

    result = run(options)
    output, notes = result.render(fmt)
    if option_notes:
        notes[:0] = options.notes
    notes += result.save_plots(output, notes)
    return output, notes
