"""Real processes for integration tests: a Celery worker and a loopback SMTP server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import TypeVar

import pytest
from aiosmtpd.controller import Controller
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


class Inbox:
    """An aiosmtpd handler that keeps every message it receives."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        with self._lock:
            self.messages.append(message_from_bytes(envelope.content))  # type: ignore[attr-defined]
        return "250 Message accepted for delivery"


class RefusingInbox(Inbox):
    """An inbox whose server refuses the first ``refusals`` messages as "busy, try later"."""

    def __init__(self, refusals: int) -> None:
        super().__init__()
        self.refusals = refusals
        self.attempts = 0

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        with self._lock:
            self.attempts += 1
            if self.attempts <= self.refusals:
                return "451 4.3.0 Mail server busy, try again later"
        return await super().handle_DATA(server, session, envelope)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


InboxT = TypeVar("InboxT", bound=Inbox)


def running_smtp_server(inbox: InboxT) -> Iterator[tuple[InboxT, int]]:
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest.fixture
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    yield from running_smtp_server(Inbox())


@pytest.fixture
def refusing_smtp_server() -> Iterator[tuple[RefusingInbox, int]]:
    """A loopback SMTP server that refuses the first message it is given (a 451)."""
    inbox = RefusingInbox(refusals=1)
    yield from running_smtp_server(inbox)


def database_url_of_test_database() -> str:
    """The URL of the database this test process uses, for a worker process to open."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings["USER"] or ""
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    auth = f"{user}{password}@" if user else ""
    return f"postgres://{auth}{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"


def start_celery_worker(queues: str, **env_overrides: str) -> subprocess.Popen[str]:
    """A real `celery worker` process on the configured broker (Redis in CI) and test database."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "DATABASE_URL": database_url_of_test_database(),
        "CELERY_TASK_ALWAYS_EAGER": "0",
        **env_overrides,
    }
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "workers",
            "worker",
            "--pool=solo",
            f"--queues={queues}",
            "--loglevel=INFO",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def stop_worker(process: subprocess.Popen[str]) -> str:
    """Stop a worker (if still running) and return what it printed."""
    if process.poll() is None:
        process.terminate()
    try:
        output, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
    # The worker's own log lines join the run's log, which is checked for leaked secrets.
    with (Path(settings.VAR_DIR) / "run.log").open("a", encoding="utf-8") as run_log:
        run_log.write(output or "")
    return output or ""


@pytest.fixture
def celery_worker_process(
    transactional_db: None, smtp_server: tuple[Inbox, int], publish_to_broker: None
) -> Iterator[subprocess.Popen[str]]:
    """A worker of the default and e-mail queues, sending mail to the loopback SMTP server."""
    _, smtp_port = smtp_server
    process = start_celery_worker("default,email", EMAIL_URL=f"smtp://127.0.0.1:{smtp_port}")
    yield process
    stop_worker(process)


def wait_for(
    predicate: Callable[[], object], *, timeout: float = 60.0, interval: float = 0.2
) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False
