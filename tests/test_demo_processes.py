"""`make demo` starts real processes and `make stop` ends every one of them.

The tests run the script both targets call (workers/demo-services.sh) on a throwaway VAR
directory and free ports, with the demo's embedded defaults (SQLite, file broker), and look at
/proc for what survives: the recorded process groups, and any process whose environment or
command line names the VAR directory. The 30-day backfill is not part of it.
"""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import secrets
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from tests.integration.conftest import free_port

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "workers" / "demo-services.sh"
SERVICES = ("simulator", "web", "worker", "beat", "mail")

pytestmark = [
    pytest.mark.integration,
    pytest.mark.stack,
    pytest.mark.xdist_group("demo-processes"),
    pytest.mark.skipif(
        not Path("/proc/self/stat").exists() or shutil.which("setsid") is None,
        reason="needs Linux /proc and setsid (util-linux)",
    ),
]


# --- what /proc says ------------------------------------------------------------------------
def live_process_groups() -> dict[int, int]:
    """pid -> process group of every process that is not a zombie (a zombie holds nothing)."""
    groups = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # exited while we looked
        # The command name (field 2) may hold spaces and parentheses; the fields after it do not.
        state, _ppid, pgid = stat.rsplit(")", 1)[1].split()[:3]
        if state != "Z":
            groups[int(entry.name)] = int(pgid)
    return groups


def members_of(pgid: int) -> set[int]:
    return {pid for pid, group in live_process_groups().items() if group == pgid}


def processes_naming(var: Path) -> set[int]:
    """Live processes whose environment has VAR_DIR=var or whose command line mentions var."""
    needle_env = f"VAR_DIR={var}".encode()
    found = set()
    for pid in live_process_groups():
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if needle_env in environ or str(var).encode() in cmdline:
            found.add(pid)
    return found


def listeners_on(port: int) -> set[int]:
    """The pids holding a listening TCP socket on the port (IPv4 or IPv6)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == "0A":  # 0A: LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    holders = set()
    for pid in live_process_groups():
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) in inodes:
                    holders.add(pid)
            except OSError:
                continue
    return holders


def healthz_answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


# --- the script -----------------------------------------------------------------------------
@dataclass
class Demo:
    var: Path
    port: int
    simulator_port: int
    mail_port: int
    env: dict[str, str]

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(SCRIPT), *args],
            cwd=ROOT,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=240,
        )

    def start(self) -> dict[str, int]:
        """Starts the services; returns each one's recorded process group."""
        result = self.run("start", *SERVICES)
        assert result.returncode == 0, result.stdout + result.stderr + self.logs()
        return self.recorded_groups()

    def stop(self) -> subprocess.CompletedProcess[str]:
        result = self.run("stop")
        assert result.returncode == 0, result.stdout + result.stderr
        return result

    def recorded_groups(self) -> dict[str, int]:
        groups = {}
        for name in SERVICES:
            pid_file = self.var / "run" / f"{name}.pid"
            if pid_file.exists():
                groups[name] = int(pid_file.read_text().split()[0])
        return groups

    def logs(self) -> str:
        return "".join(
            f"\n--- {log.name}\n{log.read_text(errors='replace')[-3000:]}"
            for log in sorted((self.var / "log").glob("*.log"))
        )


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    var = tmp_path / "var"
    env = {
        key: value
        for key, value in os.environ.items()
        # The demo runs on its embedded defaults and its own settings, not the test run's.
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "VAR_DIR"}
    }
    env.update(
        DEBUG="0",
        HTTPS="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        FIELD_ENCRYPTION_KEY=Fernet.generate_key().decode(),
        VAR=str(var),
        PORT=str(free_port()),
        SIMULATOR_PORT=str(free_port()),
        MAIL_PORT=str(free_port()),
        # The virtualenv's bin directory, where the demo finds python, gunicorn and celery.
        VENV_BIN=os.path.dirname(sys.executable),
    )
    demo = Demo(var, int(env["PORT"]), int(env["SIMULATOR_PORT"]), int(env["MAIL_PORT"]), env)
    yield demo
    # Whatever a failed test left running must not outlive it.
    for pid in processes_naming(var) | {
        pid for pgid in demo.recorded_groups().values() for pid in members_of(pgid)
    }:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def assert_nothing_of_the_demo_survives(demo: Demo, groups: dict[str, int]) -> None:
    survivors = {name: members_of(pgid) for name, pgid in groups.items() if members_of(pgid)}
    assert survivors == {}, f"processes of the demo outlived stop: {survivors}"
    assert processes_naming(demo.var) == set()
    assert listeners_on(demo.port) == set()
    assert listeners_on(demo.simulator_port) == set()
    assert listeners_on(demo.mail_port) == set()
    assert not healthz_answers(demo.port)


# --- the tests ------------------------------------------------------------------------------
def test_it_leaves_no_process_and_no_taken_port_after_stop(demo: Demo) -> None:
    groups = demo.start()

    assert set(groups) == set(SERVICES)
    everything = processes_naming(demo.var)
    for name, pgid in groups.items():
        # The pid file names the service itself, the leader of its own process group.
        assert pgid in members_of(pgid), name
        assert members_of(pgid) <= everything, name
    # gunicorn's and Celery's children are in their service's group, so a stop reaches them.
    assert len(members_of(groups["web"])) == 3  # the master and --workers 2
    assert len(members_of(groups["worker"])) == 3  # the main process and --concurrency=2
    assert listeners_on(demo.port) <= members_of(groups["web"])
    assert listeners_on(demo.simulator_port) == {groups["simulator"]}
    assert listeners_on(demo.mail_port) == {groups["mail"]}
    assert healthz_answers(demo.port)

    result = demo.stop()

    assert_nothing_of_the_demo_survives(demo, groups)
    for name in SERVICES:
        assert f"stopped {name}" in result.stdout
    assert demo.recorded_groups() == {}


def test_it_serves_the_new_processes_when_started_twice_in_a_row(demo: Demo) -> None:
    first = demo.start()
    first_web_listeners = listeners_on(demo.port)
    assert first_web_listeners

    # What `make demo` does the second time: stop (its prerequisite), then start.
    demo.stop()
    second = demo.start()

    assert set(second.values()).isdisjoint(first.values())
    assert all(members_of(pgid) == set() for pgid in first.values())
    new_web_listeners = listeners_on(demo.port)
    assert new_web_listeners
    assert new_web_listeners <= members_of(second["web"])
    assert new_web_listeners.isdisjoint(first_web_listeners)
    assert listeners_on(demo.simulator_port) == {second["simulator"]}
    assert listeners_on(demo.mail_port) == {second["mail"]}
    assert healthz_answers(demo.port)

    demo.stop()
    assert_nothing_of_the_demo_survives(demo, {**first, **second})


def test_it_kills_a_service_that_ignores_sigterm(demo: Demo) -> None:
    pid_file = demo.var / "run" / "beat.pid"
    pid_file.parent.mkdir(parents=True)
    # A stand-in for a hung service: its leader and a child both ignore SIGTERM.
    stubborn = subprocess.Popen(
        ["setsid", str(SCRIPT), "exec-recorded", str(pid_file), "bash", "-c",
         'trap "" TERM; sleep 300 & wait'],
        cwd=ROOT,
        env=demo.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not (pid_file.exists() and len(members_of(demo.recorded_groups()["beat"])) == 2):
            assert time.monotonic() < deadline, "the stand-in did not start"
            time.sleep(0.1)
        pgid = demo.recorded_groups()["beat"]

        result = demo.run("stop", STOP_TIMEOUT="1")

        assert result.returncode == 0, result.stderr
        assert "did not exit within 1s of SIGTERM; sending SIGKILL" in result.stderr
        assert members_of(pgid) == set()
    finally:
        stubborn.kill()
        stubborn.wait()


def test_it_refuses_a_taken_port_and_names_what_holds_it(demo: Demo) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", demo.port))
        squatter.listen()

        stop = demo.run("stop")
        start = demo.run("start", "web")

    assert stop.returncode != 0
    assert start.returncode != 0
    can_name_holders = any(shutil.which(tool) for tool in ("ss", "lsof", "fuser"))
    for result in (stop, start):
        assert f"port {demo.port} is still taken" in result.stderr
        if can_name_holders:
            assert f"pid {os.getpid()} " in result.stderr
    assert not (demo.var / "run" / "web.pid").exists()


def test_it_catches_the_demos_mail_in_var_mail_and_stops_the_catcher(demo: Demo) -> None:
    result = demo.run("start", "mail")
    assert result.returncode == 0, result.stdout + result.stderr + demo.logs()
    port = demo.mail_port
    message = EmailMessage()
    message["From"] = "GPU Ledger <ledger@localhost>"
    message["To"] = "new@acme.test"
    message["Subject"] = "You are invited to Acme · 欢迎"
    message.set_content("Accept: http://localhost:8000/invitations/accept?token=abc")
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as smtp:
        smtp.send_message(message)

    caught = sorted((demo.var / "mail").glob("*.eml"))
    assert len(caught) == 1
    read_back = message_from_bytes(caught[0].read_bytes(), policy=default)
    assert read_back["Subject"] == "You are invited to Acme · 欢迎"
    assert "token=abc" in read_back.get_content()
    assert "caught mail to new@acme.test" in (demo.var / "log" / "mail.log").read_text()

    demo.stop()
    assert listeners_on(port) == set()
    assert processes_naming(demo.var) == set()


# --- e-mailed links -------------------------------------------------------------------------
# Run inside the demo's environment by `manage.py shell`: an invitation and an alert, each
# e-mailed by the demo's worker (which renders the links), like the dashboard's actions.
_INVITE_AND_ALERT = """
from django.db import transaction
from django.utils import timezone
from apps.accounts.models import Organization, User
from apps.accounts.services import invitation_create
from apps.alerts.services import alert_event_raise

organization = Organization.objects.get(slug="demo")
with transaction.atomic():
    invitation_create(
        organization=organization,
        email="new@acme.test",
        role="viewer",
        invited_by=User.objects.get(email="demo@example.com"),
    )
with transaction.atomic():
    alert_event_raise(
        organization=organization,
        started_at=timezone.now(),
        kind="budget",
        dedup_key="budget:all:80",
        evidence={"threshold_pct": 80},
        title="Budget 80% used",
        message="The organization has used 80% of its budget.",
    )
"""
_URL = re.compile(r"https?://[^\s\"'<>]+")


def caught_messages(var: Path) -> dict[str, str]:
    """Subject -> every text and HTML part of each message the demo's mail catcher kept."""
    caught = {}
    for path in sorted((var / "mail").glob("*.eml")):
        message = message_from_bytes(path.read_bytes(), policy=default)
        bodies = [
            part.get_content()
            for part in message.walk()
            if part.get_content_type() in ("text/plain", "text/html")
        ]
        caught[str(message["Subject"])] = "\n".join(bodies)
    return caught


def sign_up(port: int, email: str) -> None:
    """POST /auth/signup as the sign-up page does: the CSRF token first, then the form."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    base = f"http://127.0.0.1:{port}/api/v1"
    with opener.open(f"{base}/auth/csrf", timeout=30) as response:
        token = json.load(response)["csrfToken"]
    body = {
        "email": email,
        "password": "a long sign-up passphrase",
        "name": "New Lead",
        "organization_name": "Newcomers",
    }
    request = urllib.request.Request(
        f"{base}/auth/signup",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-CSRFToken": token},
        method="POST",
    )
    with opener.open(request, timeout=30) as response:
        assert response.status == 201


def test_it_links_the_demos_emails_to_the_port_it_serves(demo: Demo) -> None:
    # `make demo PORT=...` without PUBLIC_URL: every link must open this demo, not :8000.
    demo.env.pop("PUBLIC_URL", None)
    manage = [sys.executable, "manage.py"]
    env = {**demo.env, "VAR_DIR": str(demo.var)}

    def run_manage(*args: str) -> str:
        result = subprocess.run(
            [*manage, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    run_manage("migrate", "--noinput", "--verbosity", "0")
    run_manage("setup_demo")
    result = demo.run(
        "start", "mail", "worker", "web", EMAIL_URL=f"smtp://127.0.0.1:{demo.mail_port}"
    )
    assert result.returncode == 0, result.stdout + result.stderr + demo.logs()

    sign_up(demo.port, "newcomer@acme.test")
    run_manage("shell", "--command", _INVITE_AND_ALERT)
    assert "Digest queued" in run_manage("send_digest", "--email", "demo@example.com")

    deadline = time.monotonic() + 120
    while len(caught := caught_messages(demo.var)) < 4:
        assert time.monotonic() < deadline, f"caught only {sorted(caught)}" + demo.logs()
        time.sleep(0.5)

    subjects = " | ".join(caught)
    for kind in ("Confirm", "invited", "Budget 80% used", "GPU spend"):
        assert kind.lower() in subjects.lower(), subjects
    for subject, body in caught.items():
        urls = _URL.findall(body)
        assert urls, subject
        wrong = [url for url in urls if not url.startswith(f"http://localhost:{demo.port}/")]
        assert wrong == [], subject
    demo.stop()
