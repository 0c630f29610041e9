"""The shared machinery of the model-based metrics (gecmetrics.neural).

The first tests need no torch (the errors a user without the extra sees);
the rest are gated on the neural extra (skip without it, fail in CI).
"""

from __future__ import annotations

import io
import json
import sqlite3
import sys

import pytest

from gecmetrics.errors import ConfigError
from gecmetrics.neural import batching
from gecmetrics.neural.cache import OutputCache, cache_key
from gecmetrics.neural.device import check_device_name
from gecmetrics.neural.extra import require_torch, require_transformers
from gecmetrics.neural.models import ModelRef


def test_missing_extra_is_one_line_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch -> ImportError
    with pytest.raises(ConfigError) as err:
        require_torch("some")
    msg = str(err.value)
    assert msg.startswith("metric 'some' needs the neural extra: pip install \".[neural]\" in "
                          "the gecmetrics checkout (cannot import torch")
    assert "\n" not in msg
    with pytest.raises(ConfigError, match="metric 'impara' needs the neural extra"):
        require_transformers("impara")


@pytest.mark.parametrize("name", ["gpu", "cuda:", "cuda:x", "CPU", "", "cuda:0 "])
def test_bad_device_names_are_refused_without_torch(name):
    with pytest.raises(ConfigError, match="is not a device; choose one of: auto, cpu, cuda"):
        check_device_name(name)


def test_cache_key_is_unambiguous():
    assert cache_key("ab", "c") != cache_key("a", "bc")
    assert cache_key("a", "") != cache_key("a")
    assert cache_key("x") == cache_key("x") and len(cache_key("x")) == 64


def test_output_cache_round_trip_and_identity(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = OutputCache("some", "local:abc", path=path)
    values = [0.1 + 0.2, [1.0, -2.5e-17], {"g": 1 / 3}]
    keys = [cache_key("k", str(i)) for i in range(3)]
    assert cache.get_many(keys) == [None, None, None] and cache.misses == 3
    cache.put_many(keys, values)
    again = OutputCache("some", "local:abc", path=path)
    assert again.get_many(keys + ["other"]) == values + [None]  # floats exactly
    assert again.hits == 3 and again.misses == 1
    # another model identity never reads these rows
    assert OutputCache("some", "local:abd", path=path).get_many(keys) == [None] * 3
    off = OutputCache("some", "local:abc", enabled=False, path=path)
    assert off.get_many(keys) == [None] * 3 and off.path is None
    off.put_many(keys, values)
    with pytest.raises(ValueError):
        cache.put_many(["nan"], [float("nan")])  # never a NaN stored as a score


def test_output_cache_default_folder_follows_gecmetrics_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GECMETRICS_CACHE", str(tmp_path))
    cache = OutputCache("impara", "hub:x@main")
    cache.put_many(["a"], [1.5])
    assert cache.path == tmp_path / "outputs" / "impara.sqlite" and cache.path.is_file()


def test_damaged_output_rows_are_recomputed_and_a_bad_file_ignored(tmp_path, capfd):
    path = tmp_path / "c.sqlite"
    OutputCache("s", "id", path=path).put_many(["a", "b"], [1.0, 2.0])
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE outputs SET v = '9.0'")
    capfd.readouterr()
    assert OutputCache("s", "id", path=path).get_many(["a", "b"]) == [None, None]
    assert "damaged rows in the s model-output cache" in capfd.readouterr().err
    path.write_bytes(b"not sqlite" * 100)
    assert OutputCache("s", "id", path=path).get_many(["a"]) == [None]
    err = capfd.readouterr().err
    assert "cannot be used" in err and "delete the file" in err and err.count("\n") == 1


def test_run_batched_dedups_batches_and_a_rerun_calls_nothing(tmp_path):
    calls: list[list[str]] = []

    def fn(batch: list[str]) -> list[float]:
        calls.append(batch)
        return [float(len(s)) for s in batch]

    items = ["aa", "b", "aa", "cccc", "b", "dd", "e"]
    keys = [cache_key(s) for s in items]
    cache = OutputCache("t", "id", path=tmp_path / "t.sqlite")
    before = batching.TOTALS.computed
    out = batching.run_batched(items, fn, 2, "test", cache=cache, keys=keys)
    assert out == [2.0, 1.0, 2.0, 4.0, 1.0, 2.0, 1.0]
    assert calls == [["aa", "b"], ["cccc", "dd"], ["e"]]  # distinct keys, in order
    assert batching.TOTALS.computed - before == 5
    calls.clear()
    again = OutputCache("t", "id", path=tmp_path / "t.sqlite")
    assert batching.run_batched(items, fn, 2, "test", cache=again, keys=keys) == out
    assert calls == [] and again.misses == 0 and batching.TOTALS.computed - before == 5
    # without keys: no cache, every item computed
    assert batching.run_batched(items, fn, 3, "test") == out and len(calls) == 3


def test_run_batched_progress_bar_only_on_a_terminal_and_when_asked(monkeypatch):
    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return True

    for asked in (True, False):
        stream = Stream()
        monkeypatch.setattr(sys, "stderr", stream)
        assert batching.run_batched(["a", "bb"], lambda b: [len(s) for s in b], 1, "SOME: scoring",
                                    progress=asked) == [1, 2]
        assert ("SOME: scoring 2 items" in stream.getvalue()) is asked
        assert (stream.getvalue() == "") is (not asked)


def test_model_ref_of_a_missing_folder_is_one_line():
    with pytest.raises(ConfigError, match=r"model_g=\./nowhere/x: no such folder"):
        ModelRef("./nowhere/x").check("model_g")
    assert ModelRef("gpt2").identity() == "hub:gpt2@main"
    assert ModelRef("org/m", "abc123").identity() == "hub:org/m@abc123"


# ---- with the neural extra ------------------------------------------------------------

@pytest.mark.full
@pytest.mark.neural
def test_local_identity_follows_the_content(tmp_path):
    import os

    from neural_models import save_bert

    a = save_bert(tmp_path / "a", seed=1)
    b = save_bert(tmp_path / "b", seed=1)
    c = save_bert(tmp_path / "c", seed=2)
    ida = ModelRef(str(a)).identity()
    assert ida.startswith("local:") and ida == ModelRef(str(b)).identity()
    assert ida != ModelRef(str(c)).identity()
    cfg = a / "config.json"
    data = json.loads(cfg.read_text())
    data["hidden_dropout_prob"] = 0.5
    cfg.write_text(json.dumps(data))
    os.utime(cfg, ns=(1, 1))
    assert ModelRef(str(a)).identity() != ida  # a changed local model: a new identity


@pytest.mark.full  # builds small models with torch: seconds of import
@pytest.mark.neural
def test_devices(monkeypatch):
    import torch

    from gecmetrics.neural.device import resolve_device

    assert resolve_device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    with pytest.raises(ConfigError, match="torch sees no CUDA GPU.*use device=cpu"):
        resolve_device("cuda:0")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert resolve_device("auto") == "cuda" and resolve_device("cuda:0") == "cuda:0"
    with pytest.raises(ConfigError, match="sees 1 CUDA GPU"):
        resolve_device("cuda:1")


@pytest.mark.neural
@pytest.mark.full  # loads transformers: seconds of import
def test_loading_fp32_eval_and_an_unreachable_hub(tmp_path, monkeypatch):
    import torch
    from neural_models import save_bert
    from transformers import AutoModelForSequenceClassification

    from gecmetrics.neural.models import load_model, load_tokenizer

    folder = save_bert(tmp_path / "m", seed=3)
    model = load_model(ModelRef(str(folder)), "some", AutoModelForSequenceClassification)
    assert not model.training and next(model.parameters()).dtype == torch.float32
    assert load_tokenizer(ModelRef(str(folder)), "some").tokenize("The risk") == ["The", "risk"]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(ConfigError) as err:
        load_model(ModelRef("nobody/no-such-model"), "some")
    msg = str(err.value)
    assert "'nobody/no-such-model'" in msg and "no model hub is reachable" in msg
    assert "local folder" in msg and "\n" not in msg
