"""Cells that a spreadsheet would run as formulas, made plain text (CSV formula injection).

Excel, LibreOffice and Google Sheets evaluate a CSV cell that starts with ``=``, ``+``, ``-``
or ``@`` as a formula (and tab or carriage return first can hide one), so a project named
``=HYPERLINK("http://…"&A1,"Click")`` — or a Tencent tag value, an instance name, anything a
user or the cloud sets — would be a live link or command in a finance team's sheet. OWASP's
rule: prefix such a cell with a single quote, which every spreadsheet shows as text. A plain
number (``-5.00``, an adjustment's negative amount) stays a number: it is not a formula.

Every CSV writer passes its cells through ``spreadsheet_cell`` (apps/exports/rows.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# A plain decimal number, as the exports write amounts and quantities (sign, digits, point,
# exponent): nothing a spreadsheet could read as an expression.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_cell(value: str) -> str:
    """``value`` as a CSV cell no spreadsheet runs: a leading ``'`` where it could be a formula."""
    if value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def spreadsheet_row(values: Iterable[str]) -> list[str]:
    return [spreadsheet_cell(value) for value in values]
