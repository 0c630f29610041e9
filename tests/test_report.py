"""The HTML report (`gecmetrics report`, `meta-eval --html`): its data, its page, and the
page exercised in headless Chromium (full tier; tests/browser.py).

Expected values come from independent routes: the token diff from hand-made cases,
the paired marks of every baseline from :func:`compare_with_baseline` run per
baseline, the counts the browser shows from the same filters written in Python here,
and the leaderboard order from the corpus scores of `gecmetrics score --format json`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gecmetrics.interface.cli import main
from gecmetrics.workflows.report_data import ReportData, report_json, token_diff

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
#: The report's budget in the browser (issue 25): sort or filter 1,312 sentences.
BROWSER_MS = 200


def page_data(text: str) -> dict:
    """The JSON a report page embeds."""
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                      text, re.S)
    assert found is not None
    return json.loads(found.group(1).replace("<\\/", "</"))


# -- fast tier --------------------------------------------------------------------------


@pytest.mark.parametrize(("source", "other", "edits"), [
    ("a b c", "a b c", []),
    ("a b c", "a x c", [(1, 2, "x", "R")]),
    ("a b c", "a c", [(1, 2, "", "U")]),
    ("a b c", "a b y c", [(2, 2, "y", "M")]),
    ("a b c", "z a b c .", [(0, 0, "z", "M"), (3, 3, ".", "M")]),
    ("a  b", "a b", []),  # whitespace tokens: spacing is no edit
    ("", "new words", [(0, 0, "new words", "M")]),
])
def test_token_diff(source: str, other: str, edits: list) -> None:
    assert token_diff(source, other) == edits
    # applying the edits gives the other sentence's tokens back
    tokens = source.split()
    for start, end, correction, _ in reversed(edits):
        tokens[start:end] = correction.split()
    assert tokens == other.split()


def test_every_baseline_equals_one_at_a_time() -> None:
    from gecmetrics.corpus import Corpus
    from gecmetrics.paired import PairedOptions, compare_with_baseline, compare_with_baselines
    from gecmetrics.registry import get_metric

    src = [line.strip() for line in open(EXAMPLE / "source.txt", encoding="utf-8")]
    refs = [[line.strip() for line in open(EXAMPLE / f"ref{k}.txt", encoding="utf-8")]
            for k in (0, 1)]
    hyps = {name: [line.strip() for line in open(EXAMPLE / f"{name}.txt", encoding="utf-8")]
            for name in ("system_a", "system_b")}
    hyps["source"] = src
    corpus = Corpus(src, refs, hyps)
    metric = get_metric("green")
    stats = metric.statistics(corpus)
    scores = list(stats.corpus_scores(None))
    for test in ("bs", "ar"):
        options = PairedOptions(test, 200, 7)
        together = compare_with_baselines(stats, scores, "corpus", None, options, range(3))
        for b in range(3):
            assert together[b] == compare_with_baseline(stats, scores, "corpus", None,
                                                        options, b)


def test_report_of_the_example(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, [
        "report", "-m", "green", "-m", "chrf", "-s", str(EXAMPLE / "source.txt"),
        "-r", str(EXAMPLE / "ref0.txt"), str(EXAMPLE / "ref1.txt"),
        "-c", str(EXAMPLE / "system_a.txt"), str(EXAMPLE / "system_b.txt"),
        "-o", str(out), "--edits", "diff", "--paired-bootstrap", "100"])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    data = page_data(text)
    assert data["systems"] == ["system_a.txt", "system_b.txt"]
    assert [c["label"] for c in data["columns"]] == ["wordGREEN b=2", "chrF b=2"]
    scores = json.loads(CliRunner().invoke(main, [
        "score", "-m", "green", "-m", "chrf", "-s", str(EXAMPLE / "source.txt"),
        "-r", str(EXAMPLE / "ref0.txt"), str(EXAMPLE / "ref1.txt"),
        "-c", str(EXAMPLE / "system_a.txt"), str(EXAMPLE / "system_b.txt"),
        "--format", "json", "--paired-bootstrap", "100"]).output)
    for k, column in enumerate(data["columns"]):
        rows = scores[2 * k:2 * k + 2]
        assert column["corpus"] == [round(r["score"], 6) for r in rows]
        assert column["signature"] == rows[0]["signature"]
        compared = column["paired"][0][1]  # baseline system_a, system_b against it
        assert compared[0] == round(rows[1]["delta"], 6)
        assert compared[3] == round(rows[1]["p_value"], 6)
    src = (EXAMPLE / "source.txt").read_text(encoding="utf-8").splitlines()
    assert len(data["sources"]) == len(src) == len(data["edits"][0])
    # self-contained: nothing is fetched when the page is viewed
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:)?//', text)
    assert "default-src 'none'" in text
    assert "@media print" in text and ":focus-visible" in text  # printable, keyboard focus


def test_identical_copy_is_not_marked(tmp_path: Path) -> None:
    """A copy of the baseline differs by exactly 0: p = 1 under both tests (every
    resample is at least as extreme), in the page and in `score`, so the page's mark
    (p < 0.05) never shows; the strict ">" count gave it p = 1/(N + 1) and a ▼."""
    copy = tmp_path / "a_copy.txt"
    copy.write_bytes((EXAMPLE / "system_a.txt").read_bytes())
    args = ["-m", "green", "-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt"),
            str(EXAMPLE / "ref1.txt"), "-c", str(EXAMPLE / "system_a.txt"), str(copy)]
    for test in ("--paired-bootstrap", "--paired-ar"):
        out = tmp_path / "r.html"
        result = CliRunner().invoke(main, ["report", *args, "-o", str(out), test, "200"])
        assert result.exit_code == 0, result.output
        paired = page_data(out.read_text(encoding="utf-8"))["columns"][0]["paired"]
        assert paired[0][1][0] == 0.0 and paired[0][1][3] == 1.0
        assert paired[1][0][0] == 0.0 and paired[1][0][3] == 1.0
        rows = json.loads(CliRunner().invoke(main, ["score", *args, "--format", "json",
                                                    test, "200"]).output)
        assert rows[1]["delta"] == 0.0 and rows[1]["p_value"] == 1.0


def test_same_file_names_in_two_folders(tmp_path: Path) -> None:
    """Two systems (and two references) named sys.txt in different folders keep their
    folders in the page, so that the rows and the baseline menu tell them apart."""
    for folder, system in (("d1", "system_a.txt"), ("d2", "system_b.txt")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "sys.txt").write_bytes((EXAMPLE / system).read_bytes())
        (tmp_path / folder / "ref.txt").write_bytes((EXAMPLE / "ref0.txt").read_bytes())
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, [
        "report", "-m", "green", "-s", str(EXAMPLE / "source.txt"),
        "-r", str(tmp_path / "d1" / "ref.txt"), str(tmp_path / "d2" / "ref.txt"),
        "-c", str(tmp_path / "d1" / "sys.txt"), str(tmp_path / "d2" / "sys.txt"),
        "-o", str(out), "--edits", "diff", "--no-significance"])
    assert result.exit_code == 0, result.output
    data = page_data(out.read_text(encoding="utf-8"))
    assert data["systems"] == ["d1/sys.txt", "d2/sys.txt"]
    assert [r["name"] for r in data["references"]] == ["d1/ref.txt", "d2/ref.txt"]


@pytest.mark.parametrize(("paths", "names"), [
    (["d1/sys.txt", "d2/sys.txt"], ["d1/sys.txt", "d2/sys.txt"]),
    (["x/a.txt", "y/b.txt"], ["a.txt", "b.txt"]),
    (["x/d1/s.txt", "y/d1/s.txt", "d2/s.txt"], ["x/d1/s.txt", "y/d1/s.txt", "d2/s.txt"]),
    (["a.txt", "./a.txt"], ["a.txt", "./a.txt"]),
    (["a/s.txt", "s.txt"], ["a/s.txt", "s.txt"]),
])
def test_short_names(paths: list[str], names: list[str]) -> None:
    from gecmetrics.readers import short_names

    assert short_names(paths) == names


def test_attribution_hook_reaches_the_page() -> None:
    data = ReportData(sources=("a b",), systems=("s",), outputs=(("a c",),),
                      reference_names=(), references=(), columns=(),
                      system_edits=(((((1, 2, "c", "R"),),),)), reference_edits=(),
                      edit_source="diff", attributions={"green": [[[0.25]]]})
    page = report_json(data, [], "t")
    assert page["attributions"] == {"green": [[[0.25]]]}
    assert page["outputs"] == [["a c"]] and page["types"] == ["R"]


def test_attributions_of_the_shown_edits() -> None:
    """``--attribution``: one value per shown edit, adding up (Shapley's efficiency) to
    the sentence's score change as the report's own sentence scores give it (the
    source as a system scores M(S, S)); the page gets the colour choice and legend."""
    from gecmetrics.errors import ConfigError
    from gecmetrics.interface.html_report import render_report
    from gecmetrics.workflows.report_data import ReportOptions, gather

    files = [str(EXAMPLE / f"{name}.txt") for name in ("system_a", "system_b", "source")]
    options = ReportOptions(str(EXAMPLE / "source.txt"),
                            [str(EXAMPLE / "ref0.txt"), str(EXAMPLE / "ref1.txt")], files,
                            ("green", "chrf"), edits="diff", significance=False,
                            attribution="shapley")
    data = gather(options)
    assert data.attribution_method == "shapley" and set(data.attributions) == {"green", "chrf"}
    for column in data.columns:
        values = data.attributions[column.spec]
        assert "|edits:diff|version:" in data.attribution_signatures[column.spec]
        for k, per in enumerate(data.system_edits):
            for i, edits in enumerate(per):
                assert len(values[k][i]) == len(edits)  # exactly the edits shown
                delta = column.sentences[k][i] - column.sentences[2][i]
                assert sum(values[k][i]) == pytest.approx(delta, abs=1e-12)
    assert any(len(e) > 1 for per in data.system_edits for e in per)  # a real sharing
    page = render_report(data)
    assert 'id="attr-metric"' in page and 'id="attr-legend"' in page
    assert "|edits:diff" in page
    plain = gather(ReportOptions(options.source, options.references, files[:1], ("green",),
                                 edits="diff", significance=False))
    assert plain.attributions == {} and 'id="attr-legend"' not in render_report(plain)
    with pytest.raises(ConfigError, match="--attribution 'exact' is not one of"):
        ReportOptions(options.source, options.references, files, attribution="exact")


@pytest.mark.parametrize("command", [
    ["report", "-m", "green", "-s", "no-such-source.txt", "-r", "no-such-ref.txt",
     "-c", "no-such-hyp.txt", "-o", "no/such/folder/report.html"],
    ["meta-eval", "conll14", "-m", "green", "--html", "no/such/folder/report.html",
     "--data-dir", "no-such-data"],
])
def test_missing_folder_is_one_line_before_any_work(command: list[str],
                                                    tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # none of the inputs exists: nothing is read before the check
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "folder no/such/folder does not exist" in lines[0], lines
    assert lines[0].startswith("error: ")


def test_report_needs_an_html_name_and_a_system(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["report", "-s", str(EXAMPLE / "source.txt"), "-r", str(EXAMPLE / "ref0.txt")]
    result = runner.invoke(main, [*base, "-c", str(EXAMPLE / "system_a.txt"),
                                  "-o", str(tmp_path / "r.txt")])
    assert result.exit_code == 2 and "must end in .html, .htm" in result.output
    result = runner.invoke(main, [*base, "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 2 and "at least one system output" in result.output


def test_figures_fall_back_to_tables_without_matplotlib(monkeypatch) -> None:
    import importlib.util

    from gecmetrics.interface.html_report import svg_figures

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    figures, note = svg_figures(None)  # type: ignore[arg-type]
    assert figures == [] and "matplotlib is not installed" in note


# -- full tier: real data, a real browser ----------------------------------------------------


def conll14_report(data: Path, out: Path, edits: str = "diff", sentences: int | None = None,
                   attribution: str = "none") -> Path:
    """`gecmetrics report` of the 13 CoNLL-2014 outputs, 4 metrics (``sentences``: the
    first N only, written to files beside ``out``; ``attribution``: its method)."""
    m2 = data / "conll14st-test-data" / "noalt" / "official-2014.combined.m2"
    folder = data / "official_submissions"
    names = sorted(os.listdir(folder))
    blocks = m2.read_text(encoding="utf-8").split("\n\n")
    blocks = [b for b in blocks if b.strip()][:sentences]
    gold = out.parent / "gold.m2"
    gold.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    source = out.parent / "source.txt"
    source.write_text("".join(b.split("\n")[0][2:] + "\n" for b in blocks), encoding="utf-8")
    outputs = []
    for name in names:
        path = out.parent / name
        lines = (folder / name).read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(lines[:len(blocks)]), encoding="utf-8")
        outputs.append(str(path))
    command = [sys.executable, "-m", "gecmetrics.interface.cli", "report", "-m", "m2", "-m", "gleu",
               "-m", "green", "-m", "chrf", "-s", str(source), "--m2", str(gold),
               "-c", *outputs, "-o", str(out), "--edits", edits, "--attribution", attribution]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.full
def test_conll14_report_in_chromium(tmp_path: Path) -> None:
    from browser import chromium, console_errors
    from conftest import require_shared_data

    data = require_shared_data()
    # add-one attributions: the edit colours on the whole page for about 15 s more
    # (exact Shapley values of all 4 metrics take minutes: docs/report.md)
    out = conll14_report(data, tmp_path / "report.html", attribution="add")
    assert out.stat().st_size < 5e6  # a few MB at most
    page = page_data(out.read_text(encoding="utf-8"))
    n = len(page["sources"])
    assert n == 1312 and len(page["systems"]) == 13
    for k, outputs in enumerate(page["outputs"]):  # the edits rebuild every output
        for i, source in enumerate(page["sources"]):
            tokens = source.split()
            for start, end, correction, _ in sorted(page["edits"][k][i], reverse=True):
                tokens[start:end] = correction.split()
            assert tokens == (source if outputs[i] is None else outputs[i]).split()
    attributions = page["attributions"]
    assert list(attributions) == ["m2", "gleu", "green", "chrf"]
    for values in attributions.values():  # one value per shown edit
        assert [[len(v) for v in per] for per in values] == \
            [[len(e) for e in per] for per in page["edits"]]
    with chromium() as driver:
        driver.get(out.as_uri())
        run = driver.execute_script
        assert console_errors(driver) == []
        # the leaderboard: 13 systems x 4 metrics; sorted by M2 on a click
        assert run("return document.querySelectorAll('#leaderboard tbody tr').length") == 13
        driver.find_elements("css selector", "#leaderboard thead button")[1].click()
        shown = run("return [...document.querySelectorAll('#leaderboard tbody tr')]"
                    ".map(r => r.cells[0].textContent)")
        m2 = page["columns"][0]["corpus"]
        assert shown == [page["systems"][i] for i in sorted(range(13), key=lambda i: -m2[i])]
        assert run("return document.querySelectorAll('#leaderboard .sig-up, "
                   "#leaderboard .sig-down').length") > 0
        # the explorer: every sentence listed, sorted and filtered within the budget
        driver.find_element("id", "tab-explorer").click()
        assert run("return window.gecReport.shown") == n
        times = []
        for sort in ("disagreement", "absdiff", "difference", "score", "length", "index"):
            run(f"document.getElementById('sort').value = '{sort}';"
                "document.getElementById('sort').dispatchEvent(new Event('change'));")
            times.append(run("return window.gecReport.lastApplyMs"))
            run("window.gecReport.apply(true)")  # every row drawn, not a page of them
            times.append(run("return window.gecReport.lastApplyMs"))
        run("document.getElementById('sort').value = 'length';"
            "document.getElementById('sort').dispatchEvent(new Event('change'));")
        first = run("return +document.querySelector('#sentence-list .row').dataset.index")
        assert len(page["sources"][first].split()) == max(len(s.split()) for s in page["sources"])
        # full-text search, counted here from the same lines
        word = "however"
        expected = sum(
            1 for i, s in enumerate(page["sources"])
            if word in "\n".join([s, *(o[i] for o in page["outputs"] if o[i] is not None),
                                  *(r["lines"][i] for r in page["references"])]).lower())
        box = driver.find_element("id", "search")
        box.send_keys(word)
        driver.implicitly_wait(0)
        import time

        deadline = time.monotonic() + 5
        while run("return window.gecReport.shown") != expected and time.monotonic() < deadline:
            time.sleep(0.05)
        assert run("return window.gecReport.shown") == expected
        times.append(run("return window.gecReport.lastApplyMs"))
        box.clear()
        run("var b = document.getElementById('search'); b.value = '#789'; window.gecReport.apply()")
        assert run("return window.gecReport.shown") == 1
        assert run("return document.querySelector('#sentence-list .row').dataset.index") == "788"
        run("document.getElementById('search').value = '';"
            "document.getElementById('type').value = 'M';"
            "document.getElementById('type').dispatchEvent(new Event('change'));")
        inserted = sum(1 for i in range(n) if any(any(e[3] == "M" for e in per[i])
                                                  for per in page["edits"]))
        assert run("return window.gecReport.shown") == inserted
        times.append(run("return window.gecReport.lastApplyMs"))
        assert max(times) < BROWSER_MS, times
        # keyboard: focus a sentence, open it with Enter; edits carry a second cue
        from selenium.webdriver.common.keys import Keys

        row = driver.find_element("css selector", "#sentence-list .row")
        row.send_keys(Keys.ENTER)
        assert row.get_attribute("aria-expanded") == "true"
        deco = run("var i = document.querySelector('.detail ins.e'), "
                   "d = document.querySelector('.detail del.e');"
                   "return [i && getComputedStyle(i).textDecorationLine, "
                   "d && getComputedStyle(d).textDecorationLine]")
        assert deco[0] == "underline"
        # the attribution colours: every system edit of the opened sentence, coloured
        # by the chosen metric (m2, the first), with its sign and value as a second cue
        i = int(row.get_attribute("data-index"))
        values = [v for per in attributions["m2"] for v in per[i]]
        edits = [e for per in page["edits"] for e in per[i]]
        shown = run("return [...document.querySelectorAll('.detail .e.attr')].map(e => "
                    "[+e.dataset.attribution, e.title, getComputedStyle(e).backgroundColor,"
                    " e.dataset.sign || null, getComputedStyle(e, '::after').content])")
        parts = sum((e[1] > e[0]) + (e[2] != "") for e in edits)  # a <del> and/or an <ins>
        assert len(shown) == parts > 0
        assert sorted({v for v, *_ in shown}) == sorted(set(values))
        for value, title, background, sign, after in shown:
            assert "attribution" in title and background not in ("", "rgba(0, 0, 0, 0)")
            if sign is not None:  # the sign after the edit matches the value
                assert sign == ("+" if value > 0 else "\u2212" if value < 0 else "\u00b1")
                assert after.strip('"') == sign
        assert run("return document.getElementById('attr-metric').value") == "m2"
        legend = run("var l = document.getElementById('attr-legend');"
                     "return [l.hidden, l.textContent, getComputedStyle("
                     "l.querySelector('.attr-bar')).backgroundImage]")
        assert legend[0] is False and "penalised" in legend[1] and "rewarded" in legend[1]
        assert "gradient" in legend[2]
        run("var s = document.getElementById('attr-metric'); s.value = '';"
            "s.dispatchEvent(new Event('change'))")
        assert run("return [document.querySelectorAll('.detail .e.attr').length,"
                   " document.getElementById('attr-legend').hidden]") == [0, True]
        run("var s = document.getElementById('attr-metric'); s.value = 'green';"
            "s.dispatchEvent(new Event('change'))")
        green = {v for per in attributions["green"] for v in per[i]}
        assert {v for v, *_ in run("return [...document.querySelectorAll('.detail .e.attr')]"
                                   ".map(e => [+e.dataset.attribution])")} == green
        row.send_keys(Keys.ARROW_DOWN)
        assert run("return document.activeElement.classList.contains('row')")
        assert console_errors(driver) == []
        driver.save_screenshot(str(tmp_path / "report.png"))
        folder = os.environ.get("GECMETRICS_REPORT_SCREENSHOTS")
        if folder:  # docs/img/report-*.png are made this way (docs/report.md)
            driver.set_window_size(1100, 760)
            run("document.getElementById('tab-board').click(); window.scrollTo(0, 0)")
            driver.save_screenshot(os.path.join(folder, "report-leaderboard.png"))
            run("document.getElementById('tab-explorer').click();"
                "var c = document.getElementById('attr-metric'); c.value = 'green';"
                "c.dispatchEvent(new Event('change'));"
                "var s = document.getElementById('sort'); s.value = 'disagreement';"
                "s.dispatchEvent(new Event('change'));"
                "var r = [...document.querySelectorAll('#sentence-list .row')].find("
                "x => x.querySelector('.src').textContent.split(' ').length < 20);"
                "r.click(); r.scrollIntoView()")
            driver.save_screenshot(os.path.join(folder, "report-sentences.png"))


@pytest.mark.full
def test_errant_edits_and_types(tmp_path: Path) -> None:
    from conftest import require_extra, require_shared_data

    require_extra("errant")
    out = conll14_report(require_shared_data(), tmp_path / "report.html", "errant", 40,
                         "add")
    page = page_data(out.read_text(encoding="utf-8"))
    assert page["edit_source"] == "errant"
    assert any(t.startswith(("R:", "M:", "U:")) for t in page["types"])
    # ERRANT's edits, exactly those shown, attributed; the signature says so
    for spec, values in page["attributions"].items():
        assert "|edits:errant|version:" in page["attribution_signatures"][spec]
        assert [[len(v) for v in per] for per in values] == \
            [[len(e) for e in per] for per in page["edits"]]


@pytest.mark.full
@pytest.mark.parametrize("run", [
    ["conll14", "--sweep-beta", "0:2:0.5"],  # the beta sweep
    ["seeda-s", "--sentence-level", "--rank-pairs"],  # the human-rank-pair heatmap
])
def test_meta_eval_html_in_chromium(run: list[str], tmp_path: Path) -> None:
    from browser import chromium, console_errors
    from conftest import require_shared_data

    data = require_shared_data()
    out = tmp_path / "meta.html"
    done = subprocess.run(
        [sys.executable, "-m", "gecmetrics.interface.cli", "meta-eval", *run, "-m", "green",
         "-m", "chrf", "--data-dir", str(data), "--html", str(out)],
        capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "report written to" in done.stderr
    text = out.read_text(encoding="utf-8")
    with chromium() as driver:
        driver.get(out.as_uri())
        assert console_errors(driver) == []
        rows = driver.execute_script(
            "return document.querySelectorAll('table.sortable tbody tr').length")
        assert rows == len(page_data(text)["rows"]) > 0
        driver.find_element("id", "tab-figures").click()
        assert driver.execute_script("return document.querySelectorAll('figure svg').length") >= 1
