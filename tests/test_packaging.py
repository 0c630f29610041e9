"""Installed layout: metrics/ and meta_eval/ live inside the package, not at top level."""

from __future__ import annotations

import importlib.util


def test_folders_are_subpackages_and_no_generic_top_level_names():
    import gecmetrics.data
    import gecmetrics.meta_eval
    import gecmetrics.metrics

    for module in (gecmetrics.metrics, gecmetrics.meta_eval, gecmetrics.data):
        assert module.__name__.startswith("gecmetrics.")
    assert importlib.util.find_spec("metrics") is None
    assert importlib.util.find_spec("meta_eval") is None


def test_package_data_is_installed():
    from importlib.resources import files

    example = files("gecmetrics.data.example")
    assert (example / "source.txt").read_text().count("\n") == 3
    assert (files("gecmetrics.data") / "conll14.json").is_file()
