"""`gecmetrics download`: fetch the public meta-evaluation benchmarks into a cache."""

from __future__ import annotations

import click

from gecmetrics.formatting import plural
from gecmetrics.interface.commands.common import friendly_errors, out
from gecmetrics.validate import check_seconds


class DownloadCommand(click.Command):
    """``download --help`` lists the benchmarks from the download registry
    (``gecmetrics/data/downloads.json``), with their files and sizes, so a benchmark
    added there is listed without editing the help (read only when help is shown)."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        from gecmetrics.download import (
            benchmark_files,
            download_names,
            download_totals,
            load_manifest,
        )

        manifest = load_manifest()
        rows = []
        for name in download_names():
            files = benchmark_files(name)
            aliases = sorted(a for a, b in manifest["aliases"].items() if b == name and a != name)
            also = f" Also: {', '.join(aliases)}." if aliases else ""
            rows.append((name, f"{plural(len(files), 'file')}, "
                               f"{megabytes(sum(f.size for f in files))} MB: "
                               f"{manifest['benchmarks'][name]['description']}.{also}"))
        count, size = download_totals()
        with formatter.section("Benchmarks"):
            formatter.write_dl(rows)
            formatter.write_paragraph()
            formatter.write_text(f"With no BENCHMARK: all {len(rows)} ({count} files, "
                                 f"{megabytes(size)} MB).")


def megabytes(size: int) -> str:
    """A size as the help, ``--list`` and docs/downloads.md show it (MB, one decimal)."""
    return f"{size / 1e6:.1f}"


@click.command(cls=DownloadCommand)
@click.argument("benchmarks", nargs=-1, metavar="[BENCHMARK ...]")
@click.option("--data-dir", metavar="DIR",
              help="Where to put the files (default: $GECMETRICS_DATA, else the user "
                   "cache folder: on Linux $XDG_CACHE_HOME/gecmetrics, else "
                   "~/.cache/gecmetrics).")
@click.option("--mirror", metavar="URL", envvar="GECMETRICS_MIRROR", show_envvar=True,
              help="Fetch URL/<relative path> instead of the upstream addresses "
                   "(a local mirror, a proxy, or file:///path/to/copy).")
@click.option("--timeout", type=float, default=60.0, show_default=True,
              help="Seconds to wait for the server to connect or answer before giving up "
                   "on a file.")
@click.option("--stall-timeout", type=float, default=60.0,
              show_default=True,
              help="Give up on a file when it makes no progress (less than 1 KiB arrives) for "
                   "this many seconds, e.g. a server that trickles.")
@click.option("--check", is_flag=True,
              help="Download nothing: verify the SHA-256 of the files already present and "
                   "list what is missing or corrupt (exit code 1 if anything is).")
@click.option("--list", "list_only", is_flag=True,
              help="List the benchmarks, their file counts and sizes, and exit.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary.")
@friendly_errors
def download_cmd(benchmarks, data_dir, mirror, timeout, stall_timeout, check, list_only,
                 quiet) -> None:
    """Download the public GEC meta-evaluation data of the BENCHMARKs listed below.
    With no BENCHMARK, all of them. Meta-eval names are accepted (seeda-s, gmeg-wiki …).

    Every file is checked against the SHA-256 recorded in the package and written
    atomically; files already present and correct are skipped, so running the command
    again finishes an interrupted download. Two runs on the same directory wait for
    each other (a lock file). A failed or interrupted run (Ctrl-C: exit code 130,
    SIGTERM: 143) removes its temporary file, the lock file and the folders it made.

    \b
    Examples:
      gecmetrics download conll14 seeda
      gecmetrics download --data-dir ./data-cache gmeg
      gecmetrics download --mirror http://127.0.0.1:8000 seeda-s
      gecmetrics download --check
    """
    from gecmetrics.download import (
        benchmark_files,
        download,
        download_names,
        missing_files,
        resolve_benchmark,
        resolve_data_dir,
    )

    check_seconds(timeout, "--timeout")  # before anything is read or made
    check_seconds(stall_timeout, "--stall-timeout")
    names = []
    for name in benchmarks or download_names():
        canonical = resolve_benchmark(name)
        if canonical not in names:
            names.append(canonical)
    root = resolve_data_dir(data_dir)

    if list_only:
        for name in names:
            files = benchmark_files(name)
            size = sum(f.size for f in files) / 1e6
            have = len(files) - len(missing_files(name, root))
            out(f"{name}\t{plural(len(files), 'file')}\t{size:.1f} MB\t{have} present "
                f"in {root}")
        return

    if check:
        bad = 0
        for name in names:
            missing = missing_files(name, root, verify=True)
            bad += len(missing)
            total = len(benchmark_files(name))
            status = "ok" if not missing else f"{len(missing)} missing or corrupt"
            ok = total - len(missing)
            out(f"{name}: {ok}/{total} files verified in {root} ({status})")
            for path in missing:
                out(f"  {path}")
        if bad:
            click.echo(f"run `gecmetrics download {' '.join(names)}` to fetch them", err=True)
            raise SystemExit(1)
        return

    def waiting() -> None:
        if not quiet:
            click.echo(f"waiting for another gecmetrics download in {root} …", err=True)

    report = download(names, root, mirror=mirror, quiet=quiet, timeout=timeout,
                      stall_timeout=stall_timeout, on_wait=waiting)
    if not quiet:
        parts = [f"{len(report.fetched)} downloaded ({report.bytes_fetched / 1e6:.1f} MB)",
                 f"{len(report.present)} already present"]
        if report.replaced:
            parts.append(f"{len(report.replaced)} corrupt ones replaced")
        out(f"{'+'.join(names)}: {', '.join(parts)} in {root}")
