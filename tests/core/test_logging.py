import logging

import pytest

from apps.core.logging import REDACTED, RedactSecretsFilter, redact


@pytest.mark.parametrize(
    "line",
    [
        'request {"SecretKey": "Gu5t9xGARNpq86cd98joQYCN3EXAMPLE"}',
        "SecretKey=Gu5t9xGARNpq86cd98joQYCN3EXAMPLE&Region=ap-guangzhou",
        "Authorization: Bearer glk_1a2b3c4d_Gu5t9xGARNpq86cd98joQYCN3EXAMPLE",
        "used key glk_1a2b3c4d_Gu5t9xGARNpq86cd98joQYCN3EXAMPLE for export",
        "Signature=0f3c9a6b5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a",
    ],
)
def test_it_redacts_secrets_from_log_lines(line: str) -> None:
    cleaned = redact(line)
    assert "Gu5t9xGARNpq86cd98joQYCN3EXAMPLE" not in cleaned
    assert "0f3c9a6b5d4e3f2a1b0c9d8e7f6a5b4c" not in cleaned
    assert REDACTED in cleaned


def test_it_leaves_ordinary_lines_alone() -> None:
    assert redact("synced 36 instances in ap-guangzhou") == "synced 36 instances in ap-guangzhou"


def test_it_redacts_secrets_inside_tracebacks() -> None:
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", None, None)
    try:
        raise ValueError("SecretKey=Gu5t9xGARNpq86cd98joQYCN3EXAMPLE")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    RedactSecretsFilter().filter(record)
    assert "Gu5t9xGARNpq86cd98joQYCN3EXAMPLE" not in logging.Formatter().format(record)
