"""The fast forms of the shared output helpers against their definitions.

``percent`` and ``fixed`` round on the digits of a float's repr; their definition is
decimal arithmetic (``_half_up_decimal``, and the pre-change ``Decimal`` expression
written out here). ``render`` writes the tables commands print itself; its definition
is tabulate (``render_tabulate``). Both are checked on many values and tables,
including rounding ties, negatives, huge and tiny numbers, every digit count the CLI
accepts, and awkward cells (empty, padded with spaces, LaTeX specials, non-ASCII,
line breaks, non-strings), which the fast renderer must either match or decline.
"""

from __future__ import annotations

import math
import random
from decimal import ROUND_HALF_UP, Decimal

import pytest

from gecmetrics import formatting
from gecmetrics.formatting import FORMATS, fixed, percent, percents, render, render_tabulate
from gecmetrics.validate import MAX_DIGITS


def decimal_round(value: float | None, digits: int, scale: int) -> str:
    """The definition: the shortest decimal form of ``value`` times ``scale``, rounded
    half up (away from zero on a tie) to ``digits`` decimals."""
    if value is None or not math.isfinite(value):
        return "-"
    quantum = Decimal(1).scaleb(-digits)
    number = Decimal(repr(float(value)))
    if scale != 1:
        number *= scale
    return str(number.quantize(quantum, rounding=ROUND_HALF_UP))


def outcome(function, *args):
    try:
        return function(*args)
    except Exception as err:  # noqa: BLE001 (the same error on both sides counts as equal)
        return type(err).__name__


def awkward_values() -> list[float | None]:
    rng = random.Random(7)
    values: list[float | None] = [
        None, math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 0.58325, -0.58325,
        0.005, 0.00005, -0.00004, 1e-5, -1e-5, 1e-7, 123.455, 0.995, 0.9995, 0.99995,
        0.999995, 9.9999995, 1e15, 1e16, 1e22, 1e30, -1e300, 5e-324, 2.675, 1.005]
    for k in range(1, 9):  # exact ties at every position: x.xx5 and friends
        values += [int(rng.uniform(-99999, 99999)) / 10 ** k + 5 / 10 ** (k + 1)
                   for _ in range(100)]
        values += [round(rng.uniform(-2, 2), k) for _ in range(100)]
    values += [rng.uniform(-1, 1) for _ in range(1000)]
    values += [rng.random() * 10 ** rng.randint(-12, 25) for _ in range(600)]
    return values


@pytest.mark.parametrize("digits", [*range(-2, MAX_DIGITS + 1)])
def test_percent_and_fixed_equal_decimal_rounding(digits):
    values = awkward_values()
    assert [outcome(percent, v, digits) for v in values] == [
        outcome(decimal_round, v, digits, 100) for v in values]
    assert [outcome(fixed, v, digits) for v in values] == [
        outcome(decimal_round, v, digits, 1) for v in values]


def near_halves(digits: int) -> list[float]:
    """Values whose percent at ``digits`` is a tie, and the floats on either side."""
    rng = random.Random(digits)
    out: list[float] = []
    for _ in range(300):
        tie = (rng.randint(-10 ** (digits + 3), 10 ** (digits + 3)) + 0.5) / 10 ** (digits + 2)
        out += [tie, math.nextafter(tie, math.inf), math.nextafter(tie, -math.inf),
                tie + 1e-9 * rng.uniform(-1, 1)]
    return out


@pytest.mark.parametrize("digits", [*range(-2, MAX_DIGITS + 1)])
def test_percents_is_percent_of_each(digits):
    """Together (numpy's rounding, the ambiguous ones apart) and one by one agree, on the
    awkward values, near ties, below and above the count that takes the fast path."""
    every = awkward_values() + near_halves(max(digits, 0))
    one_by_one = [outcome(percent, v, digits) for v in every]
    values = [v for v, text in zip(every, one_by_one, strict=True)
              if text == "-" or text[-1].isdigit()]  # not an error's name
    assert len(values) > len(every) // 2
    expected = [percent(v, digits) for v in values]
    assert percents(values, digits) == expected
    assert percents(values[:10], digits) == expected[:10]
    assert outcome(percents, every, digits) == outcome(
        lambda: [percent(v, digits) for v in every])  # the same error, if any


def test_rounding_ties_go_away_from_zero():
    assert [percent(v) for v in (0.58325, -0.58325, 0.00005, -0.00005)] == [
        "58.33", "-58.33", "0.01", "-0.01"]
    assert fixed(-0.0, 2) == "-0.00" and fixed(2.5, 0) == "3"


CELLS = ["", "a", "b c", "AMU", "58.33", "-", "100.00", "True", "False", "x" * 23, " pad ",
         "  lead", "trail  ", "a_b", "50%", "$x$", "{}", "#1", "^~", "a\\b", "<>", "&", "0"]
AWKWARD = ["é", "日本", "a\tb", "a\nb", "\x1b[31mred\x1b[0m", "\x01", 3, 2.5, None]


def random_table(rng: random.Random, awkward: bool):
    ncols = rng.randint(1, 6)
    nrows = rng.randint(1, 5)
    pool = CELLS + (AWKWARD if awkward else [])
    headers = [rng.choice(["hypothesis", "#", "F", " h ", "a_b", "", "metric b=0.5 P",
                           *(["ü"] if awkward else [])]) for _ in range(ncols)]
    rows = [[rng.choice(pool) for _ in range(ncols)] for _ in range(nrows)]
    align = rng.choice([None, [rng.choice(["left", "right"]) for _ in range(ncols)],
                        ["left"], ["right"] * (ncols + 2),
                        *([[rng.choice(["center", "decimal", "global"])] * ncols]
                          if awkward else [])])
    return headers, rows, align


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
@pytest.mark.parametrize("awkward", [False, True])
def test_render_equals_tabulate(fmt, awkward):
    rng = random.Random(f"{fmt}{awkward}")
    for _ in range(400):
        headers, rows, align = random_table(rng, awkward)
        if not awkward:  # every such table takes the fast path
            assert formatting._render_plain(headers, rows, fmt, align) is not None
        assert render(headers, rows, fmt, align) == render_tabulate(headers, rows, fmt, align), (
            headers, rows, align)


def test_the_fast_renderer_takes_plain_tables_and_declines_the_rest():
    plain = formatting._render_plain
    assert plain(["a", "b"], [["1", "x y"]], "table", ["left", "right"]) is not None
    for headers, rows, align in [
            (["a"], [["é"]], None), (["a"], [["x\ny"]], None), (["a"], [[1]], None),
            (["a"], [], None), ([], [["x"]], None), (["a", "b"], [["x"]], None),
            (["a"], [["x"]], ["center"])]:
        assert plain(headers, rows, "table", align) is None


def test_every_text_format_of_a_score_table_is_unchanged():
    headers = ["hypothesis", "GREEN P", "GREEN R", "GREEN F"]
    rows = [["sys_a", percent(0.58325), percent(0.1), percent(1.0)],
            ["b & c", "-", percent(-0.00005), percent(0.995)]]
    align = ["left", "right", "right", "right"]
    for fmt in set(FORMATS) - {"json", "tsv", "csv"}:
        assert render(headers, rows, fmt, align) == render_tabulate(headers, rows, fmt, align)
