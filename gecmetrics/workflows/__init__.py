"""Workflows that compose metrics: attribution, MultiGEC essays, Dask scoring, the
report's data. Above the metrics (they build metrics from specs), below the
meta-evaluation and the interface."""
