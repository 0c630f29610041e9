"""Built-in metrics, one module each (installed as ``gecmetrics.metrics``)."""
