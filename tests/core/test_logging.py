import logging
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

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


# --- one-time links never reach the request logs ---------------------------------------------

SET_PASSWORD_TOKEN = "cz7k1p-5d1c0ffee0e4b2a9d8c7b6a5f4e3d2c1"
TOKEN_URLS = [
    f"/set-password?uid=MQ&token={SET_PASSWORD_TOKEN}",
    f"/verify-email?token={SET_PASSWORD_TOKEN}",
    f"/invitations/accept?token={SET_PASSWORD_TOKEN}",
    f"/api/v1/digests/unsubscribe?token={SET_PASSWORD_TOKEN}",
]

APP = """
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"ok"]
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_gunicorns_access_log_keeps_no_token(tmp_path: Path) -> None:
    # The web server as Dockerfile, docker-compose.yml and make demo start it (config file,
    # access log), serving a stand-in WSGI app: the access log is gunicorn's, not Django's.
    (tmp_path / "token_app.py").write_text(APP)
    access_log = tmp_path / "access.log"
    port = _free_port()
    root = Path(__file__).resolve().parents[2]
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "token_app:app",
            "--config", "config/gunicorn.conf.py",
            "--pythonpath", str(tmp_path),
            "--bind", f"127.0.0.1:{port}",
            "--access-logfile", str(access_log),
        ],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=2).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)
        for url in TOKEN_URLS:
            urllib.request.urlopen(f"{base}{url}", timeout=5).close()
        # An asset of the set-password page: the browser sends the page's URL as Referer.
        asset = urllib.request.Request(
            f"{base}/static/app.js", headers={"Referer": f"{base}{TOKEN_URLS[0]}"}
        )
        urllib.request.urlopen(asset, timeout=5).close()
    finally:
        server.terminate()
        server.wait(timeout=30)

    log = access_log.read_text()
    assert log.count("\n") >= len(TOKEN_URLS) + 2
    assert SET_PASSWORD_TOKEN not in log
    assert "uid=MQ" not in log
    assert f"GET /set-password?{REDACTED} HTTP/1.1" in log
    assert f'"{base}/set-password?{REDACTED}"' in log


def test_runservers_request_lines_keep_no_token() -> None:
    # django.server is the logger of runserver's request lines (WSGIRequestHandler): every
    # handler it writes through redacts them.
    logger = logging.getLogger("django.server")
    handlers = [h for h in logger.handlers if h.level <= logging.INFO]
    assert handlers
    assert not logger.propagate
    for url in TOKEN_URLS:
        record = logger.makeRecord(
            "django.server",
            logging.INFO,
            __file__,
            1,
            '"%s" %s %s',
            (f"GET {url} HTTP/1.1", "200", "512"),
            None,
        )
        for handler in handlers:
            assert handler.filter(record)
            line = handler.format(record)
            assert SET_PASSWORD_TOKEN not in line
            assert REDACTED in line


@pytest.mark.parametrize(
    "line",
    [
        *TOKEN_URLS,
        f"https://ledger.example/set-password?uid=MQ&token={SET_PASSWORD_TOKEN}#x",
        f"GET /api/v1/anything?page=2&api_key={SET_PASSWORD_TOKEN} HTTP/1.1",
    ],
)
def test_it_redacts_token_bearing_urls(line: str) -> None:
    assert SET_PASSWORD_TOKEN not in redact(line)
