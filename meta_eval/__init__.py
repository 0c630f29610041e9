"""Meta-evaluation: how well metrics agree with human rankings (``gecmetrics.meta_eval``)."""
