"""Production settings: safe when DEBUG is off, loud when a secret is missing."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {"DEBUG", "SECRET_KEY", "FIELD_ENCRYPTION_KEY", "HTTPS", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_it_passes_the_deploy_check_without_warnings_when_debug_is_off(tmp_path: Path) -> None:
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="x" * 30 + "-production-secret-key-with-enough-entropy-1234567890",
        FIELD_ENCRYPTION_KEY="8V9nXU6Wr3m3wq9GxYqCMyn3tqm2lH4Ccv0ghiEhUFs=",
        VAR_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def test_it_refuses_to_start_without_a_secret_key_when_debug_is_off(tmp_path: Path) -> None:
    result = run_manage("check", DEBUG="0", VAR_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_it_names_the_variable_of_a_malformed_boolean(tmp_path: Path) -> None:
    result = run_manage("check", DEBUG="ture", VAR_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "DEBUG must be a boolean" in result.stderr


def public_url(tmp_path: Path, **env: str) -> str:
    """settings.PUBLIC_URL as a process started with ``env`` (and no PUBLIC_URL or PORT of
    the test run's own) reads it."""
    base = {k: v for k, v in os.environ.items() if k not in {"PUBLIC_URL", "PORT"}}
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "--command",
         "from django.conf import settings; print(settings.PUBLIC_URL)"],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "1",
             "VAR_DIR": str(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # The last line: Django's shell may first say what it imported.
    return result.stdout.strip().splitlines()[-1]


def test_it_links_e_mails_to_the_port_served_unless_public_url_is_set(tmp_path: Path) -> None:
    assert public_url(tmp_path) == "http://localhost:8000"
    assert public_url(tmp_path, PORT="8100") == "http://localhost:8100"
    assert (
        public_url(tmp_path, PORT="8100", PUBLIC_URL="https://ledger.example.com/")
        == "https://ledger.example.com"
    )
