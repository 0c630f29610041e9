"""The folders show the layers, and a file name says one thing: two files of the same
name in the package are one concept's two sides, listed here with the reason."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the real folders of the package (gecmetrics/metrics etc. are links to three of them)
FOLDERS = ("gecmetrics", "metrics", "meta_eval")
LINKS = ("metrics", "meta_eval", "data")

#: File name -> why it is in more than one place.
TWO_SIDES = {
    "download.py": "the downloader (core) and its `download` command (interface)",
    "multigec.py": "the MultiGEC workflow and its `multigec` command (interface)",
    "mbr.py": "the MBR selection (beside the workflows) and its `mbr` command (interface)",
    "registry.py": "each kind of plug-in's own registry: metrics (core), tokenizers "
                   "(core), benchmarks (meta-evaluation); the folder says what is registered",
    "clusters.py": "the significance clustering (stats/) and the --clusters analysis that "
                   "reports it (meta_eval/analyses/)",
    "metric.py": "both in the core: the metric interface, and the edit-based metrics' base",
    "statistics.py": "both in the core: the edit counts, and the neural metrics' caches",
}


def python_files() -> list[Path]:
    out = []
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT).parts
            if parts[0] == "gecmetrics" and len(parts) > 1 and parts[1] in LINKS:
                continue  # the same files through a link
            if path.name != "__init__.py" and path.name != "__main__.py":
                out.append(path)
    return out


def test_a_file_name_in_two_places_is_one_concepts_two_sides():
    places = defaultdict(list)
    for path in python_files():
        places[path.name].append(path.relative_to(ROOT).as_posix())
    repeated = {name: sorted(where) for name, where in places.items() if len(where) > 1}
    unexplained = {name: where for name, where in repeated.items() if name not in TWO_SIDES}
    assert not unexplained, f"same file name in two places, not listed in TWO_SIDES: {unexplained}"
    assert not set(TWO_SIDES) - set(repeated), "TWO_SIDES lists a name that is no longer repeated"


def test_each_layer_is_a_folder():
    package = ROOT / "gecmetrics"
    for layer in ("interface", "workflows"):
        assert (package / layer / "__init__.py").is_file()
    for link in LINKS:  # the top-level folders of the design card, inside the package
        assert (ROOT / link / "__init__.py").is_file()
