"""Installed layout, and the same package from anywhere.

`metrics/`, `meta_eval/` and `data/` sit at the top of the repository and are
linked into `gecmetrics/`, so they install inside the package (never as generic
top-level names), and a checkout imported from its root is the whole package:
the same code and numbers as an installed copy (docs/architecture.md).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest
from conftest import require_extra, skip_or_fail

ROOT = Path(__file__).resolve().parents[1]
#: what a fresh clone holds: no builds, no virtual environments, no kernels built in place
NOT_IN_A_CLONE = shutil.ignore_patterns(
    ".git", ".venv", ".ci-venv", "build", "dist", "*.egg-info", "__pycache__", "*.so", "*.c",
    ".hypothesis", ".pytest_cache", ".ruff_cache", ".mypy_cache", "img", "results")
#: pip's words when the index (offline, no mirror) cannot give a build requirement
NO_BUILD_REQUIREMENTS = re.compile(
    r"Could not find a version that satisfies the requirement|No matching distribution found")


def test_folders_are_subpackages_and_no_generic_top_level_names():
    import gecmetrics.data
    import gecmetrics.meta_eval
    import gecmetrics.metrics

    for module in (gecmetrics.metrics, gecmetrics.meta_eval, gecmetrics.data):
        assert module.__name__.startswith("gecmetrics.")
    # What the installation adds to sys.path, seen from outside the checkout (-P and
    # another working directory: the checkout itself of course has a metrics/ folder).
    code = ("import importlib.util as u; import gecmetrics.metrics;"
            "print(u.find_spec('metrics'), u.find_spec('meta_eval'))")
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          cwd="/", env=clean_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "None"]


def test_package_data_is_installed():
    from importlib.resources import files

    example = files("gecmetrics.data.example")
    assert (example / "source.txt").read_text().count("\n") == 3
    assert (files("gecmetrics.data") / "conll14.json").is_file()


def readme_api_example() -> str:
    """The README's Python API block, with its free names bound to data/example."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.findall(r"```python\n(.*?)```", readme.split("## Python API", 1)[1], re.S)[0]
    setup = textwrap.dedent("""\
        from pathlib import Path
        def lines(name):
            return Path("data/example", name).read_text(encoding="utf-8").splitlines()
        sources, ref0, ref1 = lines("source.txt"), lines("ref0.txt"), lines("ref1.txt")
        amu_lines, camb_lines = lines("system_a.txt"), lines("system_b.txt")
        idx = [0, 0, 1]
        """)
    return setup + block


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without what points Python at this test run's own packages."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSAFEPATH")}
    return {**env, **extra}


def run_python(python: Path | str, code: str, cwd: Path, **env: str) -> str:
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=cwd,
                          env=clean_env(**env), timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A copy of the checkout as a fresh clone has it (nothing built)."""
    target = tmp_path_factory.mktemp("clone") / "gecmetrics"
    shutil.copytree(ROOT, target, ignore=NOT_IN_A_CLONE, symlinks=True)
    return target


def _is_gecmetrics(entry: Path) -> bool:
    """An entry of a site-packages folder that is gecmetrics's own: a regular or an
    editable install, its metadata, a .pth that points at a checkout."""
    if "gecmetrics" in entry.name.lower():
        return True
    return entry.suffix == ".pth" and "gecmetrics" in entry.read_text(errors="replace").lower()


@pytest.fixture(scope="module")
def bare_venv(tmp_path_factory) -> Path:
    """A new virtual environment without gecmetrics (:func:`make_bare_venv`)."""
    return make_bare_venv(tmp_path_factory.mktemp("venv") / "v")


def make_bare_venv(where: Path) -> Path:
    """A new virtual environment without gecmetrics that sees this test run's other
    packages (numpy, click, pip ...): its site-packages links every entry of ours but
    gecmetrics's own. (Not the base interpreter's packages: a venv made the README's
    way has nothing there.) Returns its python."""
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    site_dir = Path(run_python(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                               cwd=where).strip())
    ours = [Path(p) for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    for folder in ours:
        for entry in sorted(folder.iterdir()):
            link = site_dir / entry.name
            if not (_is_gecmetrics(entry) or entry.name == "__pycache__" or link.exists()):
                link.symlink_to(entry)
    probe = run_python(python, "import importlib.util as u; print(u.find_spec('gecmetrics'))",
                       cwd=where)
    assert probe.strip() == "None", f"gecmetrics leaked into {site_dir} from {ours}"
    return python


def test_without_an_install_pythonpath_to_the_checkout_gives_the_whole_package(
        clone, bare_venv):
    code = ("import gecmetrics.metrics as m, gecmetrics.meta_eval as e, "
            "gecmetrics.meta_eval.benchmarks as b, gecmetrics.ngrams as n\n"
            "from importlib.resources import files\n"
            "print(m.__file__, e.__file__, b.__file__, n.backend_name(),"
            " (files('gecmetrics.data') / 'conll14.json').is_file())")
    out = run_python(bare_venv, code, cwd=bare_venv.parent, PYTHONPATH=str(clone)).split()
    package = clone / "gecmetrics"
    assert out == [str(package / "metrics" / "__init__.py"),
                   str(package / "meta_eval" / "__init__.py"),
                   str(package / "meta_eval" / "benchmarks" / "__init__.py"),
                   "python",  # nothing built in a fresh clone: the pure-Python kernel
                   "True"]


@pytest.mark.full
def test_pip_install_then_the_installed_copy_and_the_checkout_agree(clone, bare_venv):
    """`pip install .` (non-editable): away from the checkout the installed copy runs,
    with its compiled kernels; from the repository root the checkout's own folders are
    the whole package (pure-Python kernels, nothing built there). Both give the README
    API example's numbers, and so does this test process's own gecmetrics."""
    # Built in isolation, as `pip install .` does: the build requirements of
    # pyproject.toml (setuptools, wheel, Cython) come from the package index, not
    # from this environment (a venv made the README's way has none of them).
    pip = [str(bare_venv), "-m", "pip", "install", "--quiet", "--no-deps", str(clone)]
    done = subprocess.run(pip, capture_output=True, text=True, cwd=clone, env=clean_env(),
                          timeout=600)
    if "No module named pip" in done.stderr:
        skip_or_fail(f"this test run's environment ({sys.prefix}) has no pip")
    if done.returncode and NO_BUILD_REQUIREMENTS.search(done.stderr):
        skip_or_fail("pip cannot fetch the build requirements (setuptools, wheel, Cython) "
                     f"for an isolated build: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr[-3000:]
    site = run_python(bare_venv, "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                      cwd=bare_venv.parent).strip()
    code = ("import gecmetrics, gecmetrics.ngrams as n, gecmetrics.metrics.m2_lattice as l;"
            "print(gecmetrics.__file__, n.backend_name(), l.HAVE_KERNEL)")
    away = run_python(bare_venv, code, cwd=bare_venv.parent).split()
    assert away == [str(Path(site) / "gecmetrics" / "__init__.py"), "compiled", "True"]
    at_root = run_python(bare_venv, code, cwd=clone).split()
    assert at_root == [str(clone / "gecmetrics" / "__init__.py"), "python", "False"]
    example = readme_api_example()
    away_from_checkout = ("import os, sys; sys.path.remove(''); "  # as if run elsewhere
                          f"os.chdir({str(clone)!r})\n")
    installed = run_python(bare_venv, away_from_checkout + example, cwd=bare_venv.parent)
    checkout = run_python(bare_venv, example, cwd=clone)
    expected = run_python(sys.executable, example, cwd=ROOT)
    assert installed == checkout == expected and installed.count("\n") >= 4


# --- Every install route: sdist, wheel, a clone without symbolic links ---------------

#: the links that put the top-level folders inside the package
LINKS = ("metrics", "meta_eval", "data")
#: the compiled kernels' sources, which every source distribution must carry
KERNEL_SOURCES = ("gecmetrics/_kernel.pyx", "gecmetrics/edits/_align_kernel.pyx",
                  "metrics/_m2_kernel.pyx", "metrics/_imeasure_kernel.pyx")
#: what an installed copy must show: compiled kernels, every layer, the package data
INSTALLED_PROBE = (
    "import gecmetrics, gecmetrics.ngrams as n, gecmetrics.metrics.m2_lattice as l,"
    " gecmetrics.edits.errant_align as a, gecmetrics.meta_eval.benchmarks.conll14,"
    " gecmetrics.interface.commands.meta_eval\n"
    "from importlib.resources import files\n"
    "print(gecmetrics.__file__, n.backend_name(), l.HAVE_KERNEL, a.compiled(),"
    " (files('gecmetrics.data') / 'downloads.json').is_file(),"
    " (files('gecmetrics.data.example') / 'source.txt').is_file())")
EXAMPLE_ARGS = ("score", "-m", "green", "-m", "gleu", "-s", "source.txt", "-r", "ref0.txt",
                "ref1.txt", "-c", "system_a.txt", "system_b.txt")


def links_as_text_files(tree: Path) -> None:
    """Turn the checkout's links into what Git writes without symbolic links: a text
    file holding the link's target."""
    for name in LINKS:
        link = tree / "gecmetrics" / name
        target = os.readlink(link)
        link.unlink()
        link.write_text(target)


def example_output(python: Path | str) -> str:
    """`python -m gecmetrics score` on data/example, run away from any checkout."""
    done = subprocess.run([str(python), "-P", "-m", "gecmetrics", *EXAMPLE_ARGS],
                          capture_output=True, text=True, cwd=ROOT / "data" / "example",
                          env=clean_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def pip_install(python: Path, what: Path | str) -> None:
    """pip install ``what`` with no index: the build tools are this test run's own."""
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                           "--no-index", "--no-build-isolation", str(what)],
                          capture_output=True, text=True, cwd=python.parent.parent,
                          env=clean_env(), timeout=900)
    if "No module named pip" in done.stderr:
        skip_or_fail(f"this test run's environment ({sys.prefix}) has no pip")
    assert done.returncode == 0, done.stderr[-3000:]


def assert_installed_completely(python: Path) -> None:
    site = run_python(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                      cwd=python.parent).strip()
    out = run_python(python, INSTALLED_PROBE, cwd=python.parent).split()
    assert out == [str(Path(site) / "gecmetrics" / "__init__.py"), "compiled", "True", "True",
                   "True", "True"]
    assert example_output(python) == example_output(sys.executable)


@pytest.fixture(scope="module")
def dists(clone, tmp_path_factory) -> dict[str, Path]:
    """`python -m build` of a fresh clone: its sdist and its wheel."""
    require_extra("test")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out),
                           str(clone)], capture_output=True, text=True, env=clean_env(),
                          timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {"sdist": next(out.glob("*.tar.gz")), "wheel": next(out.glob("*.whl"))}


@pytest.mark.full
def test_the_sdist_carries_the_kernel_sources_and_each_file_once(dists):
    import tarfile

    with tarfile.open(dists["sdist"]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for source in KERNEL_SOURCES:
        assert source in names
    assert not [n for n in names if n.endswith((".c", ".so"))]
    # the linked folders are shipped once, from their real place
    assert not [n for n in names if n.split("/")[:2] in (["gecmetrics", x] for x in LINKS)]
    assert {"setup.py", "pyproject.toml", "LICENSE", "metrics/green.py",
            "meta_eval/benchmarks/conll14.py", "data/downloads.json"} <= names


@pytest.mark.full
@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_the_wheel_and_the_sdist_install_completely(dists, kind, tmp_path):
    python = make_bare_venv(tmp_path / "venv")
    pip_install(python, dists[kind])
    assert_installed_completely(python)


@pytest.mark.full
def test_a_clone_without_symbolic_links_installs_completely(tmp_path):
    """What Git for Windows checks out by default: the links become text files."""
    require_extra("test")
    clone = tmp_path / "no-links"
    done = subprocess.run(["git", "-c", "core.symlinks=false", "clone", "--quiet", str(ROOT),
                           str(clone)], capture_output=True, text=True, timeout=300)
    if done.returncode and not (ROOT / ".git").exists():
        skip_or_fail(f"{ROOT} is not a git checkout: cannot clone it")
    assert done.returncode == 0, done.stderr
    assert (clone / "gecmetrics" / "metrics").is_file()
    python = make_bare_venv(tmp_path / "venv")
    pip_install(python, clone)
    assert_installed_completely(python)


def test_a_checkout_whose_links_are_text_files_still_imports_whole(clone, bare_venv, tmp_path):
    tree = tmp_path / "checkout"
    shutil.copytree(clone, tree, symlinks=True)
    links_as_text_files(tree)
    code = ("import gecmetrics.metrics.green as g, gecmetrics.meta_eval.benchmarks as b\n"
            "from importlib.resources import files\n"
            "print(g.__file__, b.__file__, (files('gecmetrics.data') / 'conll14.json').is_file())")
    out = run_python(bare_venv, code, cwd=tree).split()
    assert out == [str(tree / "metrics" / "green.py"),
                   str(tree / "meta_eval" / "benchmarks" / "__init__.py"), "True"]


def test_a_source_tree_without_a_kernel_source_fails_the_build_in_one_line(clone, tmp_path):
    tree = tmp_path / "broken"
    shutil.copytree(clone, tree, symlinks=True)
    (tree / "metrics" / "_m2_kernel.pyx").unlink()
    done = subprocess.run([sys.executable, "setup.py", "--version"], capture_output=True,
                          text=True, cwd=tree, env=clean_env(), timeout=120)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "metrics/_m2_kernel.pyx is missing" in lines[0], done.stderr


@pytest.mark.full  # over a second: the fast tier stays under 90 s
def test_a_checkout_without_kernels_says_so_on_a_terminal_only(clone, bare_venv):
    """Python started in a checkout imports it ahead of any installed copy: without
    kernels built there, one line on a terminal says which code runs and how to build."""
    run = ("from gecmetrics import get_metric\n"
           "get_metric('green').score(['a b'], [['a c']], [['a c']])\n")
    master, slave = os.openpty()
    try:
        done = subprocess.run([str(bare_venv), "-c", run], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=slave, cwd=clone,
                              env=clean_env(), timeout=120)
        os.close(slave)
        said = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            said += chunk
    finally:
        os.close(master)
    assert done.returncode == 0
    lines = said.decode().strip().splitlines()
    assert len(lines) == 1 and "gecmetrics._kernel is not built in the checkout" in lines[0]
    assert "pip install -e ." in lines[0]
    piped = subprocess.run([str(bare_venv), "-c", run], capture_output=True, text=True,
                           cwd=clone, env=clean_env(), timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""
