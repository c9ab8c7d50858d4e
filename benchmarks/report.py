"""The table: one line per row, columns agdebug | numpy | torch | ratios | target | met?

>>> from benchmarks.harness import Row, within
>>> rows = [Row("W2", "step", "ms", {"agdebug": 6.0, "numpy": 5.0}, within("numpy", 1.1))]
>>> "1.20x <= 1.1x numpy        NO (1.20x)" in table(rows)
True
"""

from __future__ import annotations

HEADER = ("group", "workload", "agdebug", "numpy", "torch", "ag/torch", "ag/numpy", "target",
          "met?")
WIDTHS = (6, 52, 10, 10, 10, 8, 8, 20, 14)


def number(value) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def ratio(value) -> str:
    return "-" if value is None else f"{value:.2f}x"


def verdict(row) -> str:
    met, observed = row.verdict()
    if row.note and not row.values:
        return row.note
    if met is None:
        return observed or ""
    return f"{'yes' if met else 'NO'} ({observed})"


def cells(row) -> tuple:
    name = f"{row.name} [{row.unit}]"
    if row.note and row.values:
        name += f" ({row.note})"
    values = tuple(number(row.values.get(lib)) for lib in ("agdebug", "numpy", "torch"))
    return (row.group, name, *values, ratio(row.ratio("torch")), ratio(row.ratio("numpy")),
            row.target.text if row.target else "", verdict(row))


def line(fields) -> str:
    parts = []
    for i, (text, width) in enumerate(zip(fields, WIDTHS)):
        text = str(text)
        parts.append(text.ljust(width) if i < 2 or i >= 7 else text.rjust(width))
    return " ".join(parts).rstrip()


def table(rows) -> str:
    """The rows as fixed-width text."""
    out = [line(HEADER), line("-" * w for w in WIDTHS)]
    out += [line(cells(row)) for row in rows]
    return "\n".join(out)
