"""Shared plumbing of the benchmarks: a throw-away PostgreSQL database, machine facts, and
appending a dated section to bench/RESULTS.md."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlparse, urlunparse

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def setup_django(database_url: str, *, recreate: bool = True) -> None:
    """(Re)create the database named in ``database_url``, configure Django on it, migrate.

    ``recreate=False`` keeps an existing database (a bench reusing the data it built before);
    migrating it applies whatever migrations came since, data migrations included.
    """
    parsed = urlparse(database_url)
    if not parsed.scheme.startswith("postgres"):
        sys.exit("benchmarks need DATABASE_URL=postgres://...")
    name = parsed.path.lstrip("/")
    if recreate or not database_exists(database_url):
        _admin(database_url, f'DROP DATABASE IF EXISTS "{name}"')
        _admin(database_url, f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuv")
    os.environ.setdefault("FIELD_ENCRYPTION_KEY", "8V9nXU6Wr3m3wq9GxYqCMyn3tqm2lH4Ccv0ghiEhUFs=")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("VAR_DIR", str(Path(tempfile.gettempdir()) / "gpu-ledger-bench"))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def database_exists(database_url: str) -> bool:
    import psycopg

    admin_url = urlunparse(urlparse(database_url)._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s",
            [urlparse(database_url).path.lstrip("/")],
        ).fetchone()
    return row is not None


def _admin(database_url: str, sql: str) -> None:
    import psycopg

    admin_url = urlunparse(urlparse(database_url)._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql)


def teardown(database_url: str) -> None:
    from django.db import connections

    connections.close_all()
    _admin(database_url, f'DROP DATABASE IF EXISTS "{urlparse(database_url).path.lstrip("/")}"')


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        version = cursor.fetchone()[0]
    arch = subprocess.run(["uname", "-m"], capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()[0]
    return f"{arch or platform.machine()}, {os.cpu_count()} CPUs, {cpu}, PostgreSQL {version}, load {load:.1f}"


def record(
    title: str, rows: list[tuple[str, str, str, str]], *, command: str, info: str, note: str = ""
) -> str:
    """Append a dated table (figure, measured, target, result) to RESULTS.md; return it."""
    lines = [
        "",
        f"## {title}, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"Machine: {info}. Command: `{command}`.",
        *([note] if note else []),
        "",
        "| Figure | Measured (side by side, one run) | Target | Result |",
        "|---|---|---|---|",
        *(f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows),
        "",
    ]
    text = "\n".join(lines)
    if not RESULTS.exists():
        RESULTS.write_text("# Benchmark results\n")
    with RESULTS.open("a") as results:
        results.write(text)
    return text
