"""`meta-eval --scores NAME=PATH`: a metric's scores from a file give what the metric gives.

The scores are written by `gecmetrics score` (GREEN, on the benchmark's own system
files), so reading them back must reproduce the built-in GREEN's correlations,
bootstrap intervals, comparisons, windows and sentence-level accuracies exactly;
the built-in metric is the oracle. The error cases check one line and exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gecmetrics.errors import GecMetricsError
from gecmetrics.interface.cli import main
from gecmetrics.meta_eval.render import render_evaluation

TOL = 1e-9
CORR = ("pearson", "spearman", "kendall")


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def meta(data: Path, *args: str) -> list[dict]:
    res = invoke("meta-eval", *args, "--format", "json", "--data-dir", str(data))
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def score_json(*args: str) -> list[dict]:
    res = invoke("score", *args, "--format", "json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def write_lines(path: Path, lines) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def to_tsv(rows: list[dict], path: Path) -> Path:
    """`gecmetrics score --format json` at corpus level -> system<TAB>score, full precision."""
    body = [f"{Path(r['hypothesis']).name.removesuffix('.txt')}\t{r['score']!r}" for r in rows]
    return write_lines(path, ["system\tscore", *body])


def same(a: float | None, b: float | None) -> bool:
    return (a is None and b is None) or abs(a - b) <= TOL


@pytest.fixture(scope="module")
def files(tmp_path_factory, conll, shared_data):
    """Per benchmark: GREEN corpus scores as TSV and sentence scores as the JSON of
    `gecmetrics score --level sentence`, each from the files the benchmark scores."""
    from gecmetrics.meta_eval.benchmarks import load_benchmark

    out: dict[str, dict[str, Path]] = {}
    # conll14: the 12 submissions as distributed, INPUT = the M2 source text (the
    # distributed INPUT file has trailing spaces); the fixture's NULL is no system.
    root = tmp_path_factory.mktemp("conll14")
    sources, refs, hyps = conll
    src = write_lines(root / "source", sources)
    ref_paths = [str(write_lines(root / f"ref{k}", ref)) for k, ref in enumerate(refs)]
    (root / "sys").mkdir()
    systems = [str(write_lines(root / "sys" / name, lines))
               for name, lines in hyps.items() if name != "NULL"]
    out["conll14"] = _score_both(root, str(src), ref_paths, systems)
    out["conll14"]["null"] = write_lines(root / "sys" / "NULL", hyps["NULL"])
    # seeda-s: the subset outputs as distributed; their references are CoNLL-2014's
    # at the subset positions (written from the benchmark's corpus).
    root = tmp_path_factory.mktemp("seeda")
    corpus = load_benchmark("seeda-s", shared_data).corpus
    ref_paths = [str(write_lines(root / f"ref{k}", ref))
                 for k, ref in enumerate(corpus.references)]
    outputs = shared_data / "SEEDA" / "outputs" / "subset"
    systems = sorted(str(p) for p in outputs.glob("*.txt"))
    out["seeda-s"] = _score_both(root, str(outputs / "INPUT.txt"), ref_paths, systems)
    out["seeda-s"]["systems"] = systems  # type: ignore[assignment]
    out["seeda-s"]["refs"] = ref_paths  # type: ignore[assignment]
    return out


def _score_both(root: Path, src: str, refs: list[str], systems: list[str]) -> dict[str, Path]:
    args = ["-m", "green", "-s", src, "-r", *refs, "-c", *systems]
    corpus_rows = score_json(*args)
    sentence_rows = score_json(*args, "--level", "sentence")
    sentence = root / "green.sentence.json"
    sentence.write_text(json.dumps(sentence_rows), encoding="utf-8")
    corpus = root / "green.corpus.json"
    corpus.write_text(json.dumps(corpus_rows), encoding="utf-8")
    return {"tsv": to_tsv(corpus_rows, root / "green.tsv"), "sentence": sentence,
            "corpus": corpus}


def assert_rows_equal(ours: list[dict], builtin: list[dict], keys=CORR, name="mine") -> None:
    assert len(ours) == len(builtin) > 0
    for a, b in zip(ours, builtin, strict=True):
        assert a["metric"] == name and a["spec"] == f"scores:{name}" and a["beta"] is None
        assert (a["benchmark"], a["systems"], a["n_systems"]) == (
            b["benchmark"], b["systems"], b["n_systems"])
        for key in keys:
            if isinstance(b[key], list):
                assert all(same(x, y) for x, y in zip(a[key], b[key], strict=True)), key
            else:
                assert same(a[key], b[key]), (key, a[key], b[key])


BENCH = ["conll14", "seeda-s"]


@pytest.mark.full
@pytest.mark.parametrize("bench", BENCH)
def test_corpus_tsv_gives_the_builtin_correlations(files, shared_data, bench):
    builtin = meta(shared_data, bench, "-m", "green")
    tsv = meta(shared_data, bench, "--scores", f"mine={files[bench]['tsv']}")
    assert_rows_equal(tsv, builtin)
    assert tsv[0]["level"] == "corpus"
    # a system score is used as given at mean level too; the score JSON reads the same
    as_mean = meta(shared_data, bench, "--scores", f"mine={files[bench]['tsv']}",
                   "--level", "mean")
    assert_rows_equal(as_mean, builtin)
    direct = meta(shared_data, bench, "--scores", f"mine={files[bench]['corpus']}")
    assert_rows_equal(direct, builtin)
    # sanity: these are GREEN's published conll14 figures (GREEN paper Table 2)
    if bench == "conll14":
        assert round(tsv[0]["pearson"], 3) == 0.741 and round(tsv[0]["spearman"], 3) == 0.698


@pytest.mark.full
@pytest.mark.parametrize("bench", BENCH)
def test_sentence_json_gives_builtin_intervals(files, shared_data, bench):
    boot = ("--bootstrap", "200", "--seed", "7")
    builtin = meta(shared_data, bench, "-m", "green", "--level", "mean", *boot)
    ours = meta(shared_data, bench, "--scores", f"mine={files[bench]['sentence']}",
                "--level", "mean", *boot)
    keys = (*CORR, "pearson_ci", "spearman_ci", "kendall_ci")
    assert_rows_equal(ours, builtin, keys)
    # corpus level of sentence scores = their mean, said on stderr
    res = invoke("meta-eval", bench, "--scores", f"mine={files[bench]['sentence']}", *boot,
                 "--format", "json", "--data-dir", str(shared_data))
    assert res.exit_code == 0, res.output
    assert "corpus level is their mean" in res.stderr
    rows = json.loads(res.stdout)
    assert rows[0]["level"] == "corpus"
    assert_rows_equal(rows, builtin, keys)


@pytest.mark.full
@pytest.mark.parametrize("bench", BENCH)
def test_sentence_level_accuracy_equals_builtin(files, shared_data, bench):
    builtin = meta(shared_data, bench, "-m", "green", "--sentence-level")
    ours = meta(shared_data, bench, "--scores", f"mine={files[bench]['sentence']}",
                "--sentence-level")
    assert_rows_equal(ours, builtin, ("accuracy", "kendall_like", "n_pairs", "concordant",
                                      "discordant", "metric_ties"))


@pytest.mark.full
def test_compare_window_cv_and_sweep(files, shared_data):
    """GREEN read back vs GREEN computed: identical r, a zero difference in every
    resample; windows as the built-in's; no beta, so cv-beta is null and a sweep one point."""
    rows = meta(shared_data, "seeda-s", "-m", "green", "--scores",
                f"mine={files['seeda-s']['sentence']}", "--level", "mean", "--compare",
                "--bootstrap", "100", "--window", "4", "--cv-beta", "3")
    compare = [r for r in rows if r.get("analysis") == "compare"]
    assert len(compare) == 1 and compare[0]["metric_b"] == "mine"
    assert same(compare[0]["pearson_a"], compare[0]["pearson_b"])
    assert compare[0]["delta_ci"] == [0.0, 0.0]
    windows = [r for r in rows if r.get("analysis") == "window"]
    green = [w for w in windows if w["spec"] == "green"]
    mine = [w for w in windows if w["spec"] == "scores:mine"]
    assert len(green) == len(mine) == 9
    for a, b in zip(mine, green, strict=True):
        assert a["window_start"] == b["window_start"]
        assert same(a["pearson"], b["pearson"]) and same(a["spearman"], b["spearman"])
    main_rows = [r for r in rows if "analysis" not in r]
    assert main_rows[1]["beta_star"] is None and main_rows[0]["beta_star"] is not None
    # window analysis needs system scores only: the TSV works
    tsv = meta(shared_data, "seeda-s", "--scores", f"mine={files['seeda-s']['tsv']}",
               "--window", "4")
    builtin = meta(shared_data, "seeda-s", "-m", "green", "--window", "4")
    for a, b in zip(tsv[1:], builtin[1:], strict=True):
        assert same(a["pearson"], b["pearson"]) and same(a["spearman"], b["spearman"])
    swept = meta(shared_data, "seeda-s", "-m", "green", "--scores",
                 f"mine={files['seeda-s']['tsv']}", "--sweep-beta", "1:2:0.5")
    assert [r["beta"] for r in swept] == [1.0, 1.5, 2.0, None]


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_order_lower_flips_every_correlation(files, shared_data, tmp_path):
    plain = meta(shared_data, "seeda-s", "--scores", f"mine={files['seeda-s']['tsv']}",
                 "--systems", "+INPUT")
    lower = meta(shared_data, "seeda-s", "--scores",
                 f"mine={files['seeda-s']['tsv']}:order=lower", "--systems", "+INPUT")
    for key in CORR:
        assert lower[0][key] == pytest.approx(-plain[0][key], abs=TOL)
        assert plain[0][key] != 0
    # an error rate (lower is better) = the negated scores, read with order=lower
    negated = tmp_path / "neg.tsv"
    rows = [line.split("\t") for line in files["seeda-s"]["tsv"].read_text().splitlines()[1:]]
    write_lines(negated, ["system\tscore", *(f"{s}\t{-float(v)!r}" for s, v in rows)])
    flipped = meta(shared_data, "seeda-s", "--scores", f"mine={negated}:order=lower",
                   "--systems", "+INPUT")
    assert_rows_equal(flipped, plain)
    # sentence level: a lower-is-better metric's pairwise decisions flip too
    sent = json.loads(files["seeda-s"]["sentence"].read_text())
    neg_json = tmp_path / "neg.json"
    neg_json.write_text(json.dumps({Path(r["hypothesis"]).stem: [-v for v in r["scores"]]
                                    for r in sent}))
    a = meta(shared_data, "seeda-s", "--scores", f"mine={files['seeda-s']['sentence']}",
             "--sentence-level", "--ties", "exclude")
    b = meta(shared_data, "seeda-s", "--scores", f"mine={neg_json}:order=lower",
             "--sentence-level", "--ties", "exclude")
    assert a[0]["accuracy"] == b[0]["accuracy"] and a[0]["n_pairs"] == b[0]["n_pairs"]


def test_other_formats_read_the_same(files, shared_data, tmp_path):
    """JSON object of system scores, JSON object of sentence lists, a folder of files."""
    sent = json.loads(files["seeda-s"]["sentence"].read_text())
    lists = {Path(r["hypothesis"]).stem: r["scores"] for r in sent}
    means = {name: float(np.mean(v)) for name, v in lists.items()}
    (tmp_path / "means.json").write_text(json.dumps(means))
    (tmp_path / "lists.json").write_text(json.dumps(lists))
    folder = tmp_path / "folder"
    folder.mkdir()
    for k, (name, values) in enumerate(lists.items()):  # with and without .txt
        write_lines(folder / (f"{name}.txt" if k % 2 else name), (repr(v) for v in values))
    builtin = meta(shared_data, "seeda-s", "-m", "green", "--level", "mean")
    for path in ("means.json", "lists.json", "folder"):
        ours = meta(shared_data, "seeda-s", "--scores", f"mine={tmp_path / path}",
                    "--level", "mean")
        assert_rows_equal(ours, builtin)


def test_score_json_with_several_specs_and_betas(files, shared_data, tmp_path):
    seeda = files["seeda-s"]
    rows = score_json("-m", "green", "-m", "green:tokenize=char,n=6", "-b", "1", "-b", "2",
                      "--level", "sentence", "-s", str(shared_data / "SEEDA" / "outputs" /
                                                       "subset" / "INPUT.txt"),
                      "-r", *seeda["refs"], "-c", *seeda["systems"])
    path = tmp_path / "two.json"
    path.write_text(json.dumps(rows))
    res = invoke("meta-eval", "seeda-s", "--scores", f"x={path}", "--data-dir",
                 str(shared_data))
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert "holds 4 score sets" in res.output
    assert "spec=green:tokenize=char,n=6,beta=1" in res.output
    res = invoke("meta-eval", "seeda-s", "--scores", f"x={path}:beta=1", "--data-dir",
                 str(shared_data))
    assert res.exit_code == 2 and "several match" in res.output
    builtin = meta(shared_data, "seeda-s", "-m", "green:tokenize=char,n=6", "-b", "1",
                   "--level", "mean")
    ours = meta(shared_data, "seeda-s", "--scores",
                f"char={path}:beta=1,spec=green:tokenize=char,n=6", "--level", "mean")
    assert_rows_equal(ours, builtin, name="char")


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_python_api_with_a_mapping(files, shared_data):
    from gecmetrics.meta_eval import meta_evaluate
    from gecmetrics.meta_eval.score_files import scores_metric

    sent = json.loads(files["conll14"]["sentence"].read_text())
    arrays = {Path(r["hypothesis"]).name: np.array(r["scores"]) for r in sent}
    metric = scores_metric("neural", arrays)
    result = meta_evaluate(["conll14"], [metric], levels=["mean"], data_dir=str(shared_data))
    out, notes = render_evaluation(result, "json")
    builtin = meta(shared_data, "conll14", "-m", "green", "--level", "mean")
    assert_rows_equal(json.loads(out), builtin, name="neural")
    assert notes == []
    with pytest.raises(GecMetricsError, match="not a number"):
        scores_metric("bad", {"AMU": [0.1, "x"]})
    with pytest.raises(GecMetricsError, match="must be higher or lower"):
        scores_metric("bad", {"AMU": 0.1}, order="up")


def test_files_are_checked_before_any_metric_is_scored(files, shared_data, tmp_path,
                                                       monkeypatch):
    from gecmetrics.metrics.green import Green

    def never(*_):
        raise AssertionError("a metric was scored before the scores file was checked")

    monkeypatch.setattr(Green, "statistics", never)
    short = tmp_path / "short.json"
    sent = json.loads(files["conll14"]["sentence"].read_text())
    short.write_text(json.dumps({Path(r["hypothesis"]).name: r["scores"][:-1] for r in sent}))
    res = invoke("meta-eval", "conll14", "-m", "green", "--scores", f"mine={short}",
                 "--data-dir", str(shared_data))
    assert res.exit_code == 2, res.output
    assert "has 1311 sentence scores but benchmark conll14" in res.output


def _tsv(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


TEAMS = ["AMU", "CAMB", "CUUI", "IITB", "INPUT", "IPN", "NTHU", "PKU", "POST", "RAC",
         "SJTU", "UFC", "UMC"]
GOOD = "".join(f"{t}\t0.{k + 1}\n" for k, t in enumerate(TEAMS))


def error_cases(tmp_path: Path, files) -> list[tuple[list[str], str]]:
    conll, seeda = files["conll14"], files["seeda-s"]
    null = tmp_path / "with_null.json"
    rows = json.loads(conll["sentence"].read_text())
    null.write_text(json.dumps(rows + [{**rows[0], "hypothesis": str(conll["null"])}]))
    short_dir = tmp_path / "short"
    short_dir.mkdir()
    write_lines(short_dir / "AMU.txt", ["0.5"] * 1311)
    inf_dir = tmp_path / "inf"
    inf_dir.mkdir()
    write_lines(inf_dir / "AMU", ["0.5", "inf"])
    dup_dir = tmp_path / "dup"
    dup_dir.mkdir()
    write_lines(dup_dir / "AMU", ["0.5"])
    write_lines(dup_dir / "AMU.txt", ["0.5"])
    head = "system\tscore\n"
    t = {name: _tsv(tmp_path, name, text) for name, text in {
        "good.tsv": head + GOOD, "miss.tsv": head + "AMU\t0.5\n",
        "x.tsv": head + GOOD + "X\t1\n", "nan.tsv": head + "AMU\tnan\n",
        "w.tsv": head + "AMU\tgood\n", "d.tsv": head + "AMU\t1\nAMU\t2\n",
        "d.json": '{"AMU": 1, "AMU": 2}', "empty.tsv": "", "h.tsv": "AMU\t0.5\n",
        "mix.json": '{"AMU": 1, "CAMB": [1]}', "bad.json": '{"AMU": '}.items()}
    tsv = t["good.tsv"]
    c = ["conll14"]
    return [
        ([*c, "--scores", f"m={t['miss.tsv']}"],
         "no scores for system 'CAMB' (and 11 more) of benchmark conll14"),
        ([*c, "--scores", f"m={null}"], "'NULL' is not a system of benchmark conll14"),
        ([*c, "--scores", f"m={t['x.tsv']}"],
         "x.tsv:15: 'X' is not a system"),
        ([*c, "--scores", f"m={short_dir}"], "AMU.txt: system 'AMU' has 1311 sentence scores"),
        (["seeda-s", "--scores", f"m={conll['sentence']}"], "is not a system of benchmark "
         "seeda-s"),
        (["seeda-s", "--scores", f"m={seeda['sentence']}", "--seeda-corpus", "all"],
         "has 391 sentence scores but benchmark seeda-s (corpus=all (1312 sentences"),
        ([*c, "--scores", f"m={t['nan.tsv']}"],
         "nan.tsv:2: the score is 'nan'; every score must be a finite number"),
        ([*c, "--scores", f"m={inf_dir}"], "AMU:2: the score is 'inf'"),
        ([*c, "--scores", f"m={t['w.tsv']}"],
         "w.tsv:2: 'good' is not a number"),
        ([*c, "--scores", f"m={t['d.tsv']}"],
         "d.tsv:3: system 'AMU' appears twice"),
        ([*c, "--scores", f"m={t['d.json']}"],
         "key 'AMU' appears twice"),
        ([*c, "--scores", f"m={dup_dir}"], "system 'AMU' appears twice"),
        ([*c, "--scores", f"m={t['empty.tsv']}"], "empty.tsv is empty"),
        ([*c, "--scores", f"m={t['h.tsv']}"],
         "h.tsv:1: expected the header 'system<TAB>score'"),
        ([*c, "--scores", f"m={t['mix.json']}"],
         "give every system one number or every system a list"),
        ([*c, "--scores", f"m={t['bad.json']}"],
         "bad.json:1: not valid JSON"),
        ([*c, "--scores", f"m={tsv}", "--bootstrap", "100"],
         "--bootstrap resamples or compares sentences, but --scores m"),
        ([*c, "--scores", f"m={tsv}", "--sentence-level"], "has system scores only"),
        ([*c, "-m", "green", "--scores", f"m={tsv}", "--compare"], "has system scores only"),
        ([*c, "--scores", f"m={tsv}:ordr=lower"], "'ordr=lower' is not an option"),
        ([*c, "--scores", f"m={tsv}:order=lower,colour=red"], "unknown option 'colour'"),
        ([*c, "--scores", f"m={tsv}:order=up"], "order='up' of scores 'm' must be higher or lower"),
        ([*c, "--scores", f"m={tsv}:beta=2"], "spec=/beta= only select within"),
        ([*c, "--scores", tsv], "--scores expects NAME=PATH"),
        ([*c, "--scores", f"m={tmp_path / 'nope.tsv'}"], "scores file not found"),
        ([*c, "--scores", f"m={tsv}", "--scores", f"m={tsv}"], "two --scores are named 'm'"),
        (c, "no metric given; add -m SPEC"),
    ]


@pytest.mark.full
def test_errors_are_one_line_and_exit_2(files, shared_data, tmp_path):
    for args, message in error_cases(tmp_path, files):
        res = invoke("meta-eval", *args, "--data-dir", str(shared_data))
        assert res.exit_code == 2, (args, res.output)
        assert res.output.startswith("error: ") and res.output.count("\n") == 1, res.output
        assert message in res.output, (message, res.output)


def test_paths_with_colons(tmp_path, shared_data):
    """Options start at the first ':' followed by order=/spec=/beta=: other ':' are path."""
    folder = tmp_path / "run:3"
    folder.mkdir()
    path = folder / "a:b.tsv"
    path.write_text("system\tscore\n" + GOOD)
    rows = meta(shared_data, "conll14", "--scores", f"m={path}", "--scores",
                f"n={path}:order=lower")
    assert same(rows[0]["pearson"], -rows[1]["pearson"])


@pytest.mark.full
def test_docs_example_sacrebleu_chrf(shared_data, tmp_path):
    """docs/own-metric.md's walk-through: sentence chrF computed by sacrebleu (an
    independent implementation) and read back equals the built-in chrF at mean level,
    and the page shows what the command prints."""
    from sacrebleu.metrics import CHRF

    from gecmetrics.meta_eval.benchmarks import load_benchmark

    corpus = load_benchmark("seeda-s", shared_data).corpus
    chrf = CHRF()
    scores = {system: [chrf.sentence_score(hyp, [ref[i] for ref in corpus.references]).score
                       / 100 for i, hyp in enumerate(lines)]
              for system, lines in corpus.hypotheses.items()}
    path = tmp_path / "mymetric.json"
    path.write_text(json.dumps(scores))
    builtin = meta(shared_data, "seeda-s", "-m", "chrf", "--level", "mean")
    assert_rows_equal(meta(shared_data, "seeda-s", "--scores", f"mymetric={path}"), builtin,
                      name="mymetric")
    page = (Path(__file__).resolve().parents[1] / "docs" / "own-metric.md").read_text()
    command = "gecmetrics meta-eval seeda-s -m green --scores mymetric=mymetric.json"
    assert command in page
    shown = page.split("this prints\n\n```\n", 1)[1].split("```", 1)[0]
    res = invoke("meta-eval", "seeda-s", "-m", "green", "--scores", f"mymetric={path}",
                 "--data-dir", str(shared_data))
    assert res.exit_code == 0, res.output
    # The signature names the scores file as given (the page: mymetric.json).
    assert res.stdout.replace(str(path), "mymetric.json").strip() == shown.strip()
