"""Dataset descriptions and the tiny example corpus (``gecmetrics.data``)."""
