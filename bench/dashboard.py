"""Dashboard speed in a real browser: navigation to charts drawn, on the demo data.

The demo organization is built as `make demo` builds it (tests/e2e/demo.py: setup_demo, a
backfill through the SDK against the Tencent Cloud simulator, analyse, recommend; one day of
history), the front-end is collected as static files and the app is served by gunicorn with
DEBUG off, as in production. Headless Debian Chromium (Playwright) then measures, side by side
in one run, each a fresh browser context (cold HTTP cache) signed in with the same session:

- the Overview: navigation to every chart of the Overview drawn (``[data-chart]`` of the shared
  test-id contract with ``data-drawn="true"``: ECharts finished rendering);
- an instance page: navigation to ``[data-chart="instance-timeseries"]`` drawn;
- the login page's form visible, as the reference: machines are noisy, the ratios are not.

Times are the browser's own (``performance.now()``: milliseconds since the navigation started,
polled every animation frame), best of 5 per page.

``--current`` measures what the pages draw before the dashboard pages of issue 13 land (every
chart on the page, named or not, at least one) to prove the harness.

    DATABASE_URL=postgres://.../gpu_ledger_bench_dashboard python -m bench.dashboard [--current]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.harness import machine, record, setup_django, teardown

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5
OVERVIEW_TARGET_S = 1.5
INSTANCE_TARGET_S = 1.0
OVERVIEW_CHARTS = ("spend-over-time", "phase-breakdown", "fleet-heatmap")
INSTANCE_CHART = "instance-timeseries"
TIMEOUT_MS = 60_000

# Resolves to performance.now() once every named chart is on the page and drawn.
ALL_NAMED_DRAWN = """(names) => names.every(
    (n) => document.querySelector(`[data-chart="${n}"][data-drawn="true"]`)
) && performance.now()"""
# Before the contract's pages land: every chart on the page drawn, and at least one.
ALL_CHARTS_DRAWN = """() => {
    const charts = document.querySelectorAll('[data-testid="chart"]');
    return charts.length > 0 && [...charts].every((c) => c.dataset.drawn === 'true')
        && performance.now();
}"""
LOGIN_FORM = "() => { const f = document.querySelector('#email'); return !!f && f.offsetParent !== null && performance.now(); }"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(port: int) -> subprocess.Popen[bytes]:
    """gunicorn as the demo runs it (DEBUG off, static files through WhiteNoise)."""
    env = {**os.environ, "DEBUG": "0", "HTTPS": "0", "LOG_LEVEL": "WARNING"}
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--timeout",
            "120",
        ],
        cwd=ROOT,
        env=env,
    )
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/login", timeout=2):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    sys.exit("gunicorn did not start")


def pick_instance(organization: Any) -> int:
    """The instance with the most phase segments: the richest time series of the demo."""
    from django.db.models import Count

    from apps.analysis.models import PhaseSegment

    row = (
        PhaseSegment.objects.filter(organization=organization)
        .values("instance_id")
        .annotate(n=Count("id"))
        .order_by("-n", "instance_id")
        .first()
    )
    if row is None:
        sys.exit("the demo has no analysed instance")
    return int(row["instance_id"])


def measure(browser: Any, state: Any, url: str, script: str, arg: Any = None) -> float:
    """Seconds from navigation to ``script`` holding, in a fresh context (cold cache).

    A page that never gets there (a chart missing from it) measures as infinity: the run goes
    on and the table says so, rather than the bench stopping half-way.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    context = browser.new_context(viewport={"width": 1280, "height": 800}, storage_state=state)
    try:
        page = context.new_page()
        page.goto(url, wait_until="commit")
        handle = page.wait_for_function(script, arg=arg, polling="raf", timeout=TIMEOUT_MS)
        return float(handle.json_value()) / 1000
    except PlaywrightTimeoutError:
        print(f"{url}: not drawn within {TIMEOUT_MS / 1000:.0f} s", file=sys.stderr)
        return float("inf")
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--current",
        action="store_true",
        help="wait for every chart on the page (before issue 13's pages land)",
    )
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument(
        "--days",
        type=int,
        default=30,
        help="days of history, as make demo backfills (the browser tests use fewer)",
    )
    parser.add_argument(
        "--no-record", action="store_true", help="print, do not append to RESULTS.md"
    )
    args = parser.parse_args()
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not chromium:
        sys.exit("Chromium is needed: apt-get install -y chromium")
    if not (ROOT / "frontend" / "dist" / "index.html").is_file():
        sys.exit("The front-end is not built: run `make frontend` first")

    database_url = os.environ.get(
        "DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_dashboard"
    )
    setup_django(database_url)
    from django.core.management import call_command
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM_FLAGS
    from tests.e2e.demo import build_demo, start_simulator

    simulator = start_simulator()
    server: subprocess.Popen[bytes] | None = None
    try:
        started = time.perf_counter()
        demo = build_demo(simulator.endpoint, days=args.days)
        built_s = time.perf_counter() - started
        call_command("collectstatic", interactive=False, verbosity=0)
        instance_id = pick_instance(demo.organization)
        info = machine()
        port = free_port()
        server = serve(port)
        base = f"http://127.0.0.1:{port}"

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, headless=True, args=CHROMIUM_FLAGS
            )
            context = browser.new_context()
            page = context.new_page()
            page.goto(f"{base}/login")
            page.fill("#email", demo.email)
            page.fill("#password", demo.password)
            page.get_by_role("button", name="Sign in").click()
            page.locator(".topbar .user-email").wait_for(timeout=TIMEOUT_MS)
            state = context.storage_state()
            context.close()

            overview_script, overview_arg = (
                (ALL_CHARTS_DRAWN, None)
                if args.current
                else (ALL_NAMED_DRAWN, list(OVERVIEW_CHARTS))
            )
            instance_script, instance_arg = (
                (ALL_CHARTS_DRAWN, None) if args.current else (ALL_NAMED_DRAWN, [INSTANCE_CHART])
            )
            pages = {
                "login": (None, f"{base}/login", LOGIN_FORM, None),
                "overview": (state, f"{base}/", overview_script, overview_arg),
                "instance": (
                    state,
                    f"{base}/instances/{instance_id}",
                    instance_script,
                    instance_arg,
                ),
            }
            times: dict[str, list[float]] = {name: [] for name in pages}
            # Interleaved, so a burst of load on the machine hits the three alike.
            for _ in range(args.runs):
                for name, (session, url, script, arg) in pages.items():
                    if times[name] and times[name][-1] == float("inf"):
                        continue  # never drawn: once is enough to say so
                    times[name].append(measure(browser, session, url, script, arg))
            browser.close()
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        simulator.stop()

    best = {name: min(values) for name, values in times.items()}
    runs = {
        name: ", ".join("never" if v == float("inf") else f"{v:.2f}" for v in values)
        for name, values in times.items()
    }
    print({name: f"{value:.3f} s" for name, value in best.items()}, runs)

    def versus_login(name: str) -> str:
        if best[name] == float("inf"):
            return f"never drawn within {TIMEOUT_MS / 1000:.0f} s"
        return f"{best[name]:.2f} s = {best[name] / best['login']:.1f}x the login form"

    what = "every chart on the page" if args.current else "every [data-chart] of the contract"
    rows = [
        (
            f"Overview: navigation to {what} drawn (best of {args.runs}, cold cache)",
            f"{versus_login('overview')} (runs: {runs['overview']})",
            f"<= {OVERVIEW_TARGET_S} s",
            "pass" if best["overview"] <= OVERVIEW_TARGET_S else "FAIL",
        ),
        (
            f"Instance page: navigation to {'every chart' if args.current else INSTANCE_CHART} "
            f"drawn (best of {args.runs}, cold cache)",
            f"{versus_login('instance')} (runs: {runs['instance']})",
            f"<= {INSTANCE_TARGET_S} s",
            "pass" if best["instance"] <= INSTANCE_TARGET_S else "FAIL",
        ),
        (
            "Reference: login page, navigation to its form shown",
            f"{best['login']:.2f} s (runs: {runs['login']})",
            "",
            "",
        ),
    ]
    note = (
        f"Demo data built as `make demo` builds it, with {args.days} days of history "
        f"({built_s:.0f} s); gunicorn 2 workers, DEBUG off, WhiteNoise static files; headless "
        "Debian Chromium, 1280x800, a fresh context per run; times are the browser's "
        "performance.now() when the condition first held (polled every frame)."
        + (
            " --current: before issue 13's dashboard pages land, every chart the page draws "
            "today (the Overview's phase chart, the instance's phase timeline)."
            if args.current
            else ""
        )
    )
    if not args.no_record:
        print(
            record(
                "Dashboard in a browser: charts drawn",
                rows,
                command="make bench-dashboard" + (" BENCH_ARGS=--current" if args.current else ""),
                info=info,
                note=note,
            )
        )
    teardown(database_url)


if __name__ == "__main__":
    main()
