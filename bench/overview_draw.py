"""How long the Overview (or a project page) takes to draw its charts in headless Chromium.

Against a running GPU Ledger with the demo data (``make demo``, or the same steps on another
database and port): signs in as the demo user once, then for each path opens a new browser
context (cold cache, the session cookie only) five times and times navigation start until the
three charts say ``data-drawn="true"`` and the month-to-date card is filled. Prints every run and
the best; saves a full-page screenshot of the last run at 1280 px.

    python -m bench.overview_draw [--base http://127.0.0.1:8000] [--shots DIR] / /projects/vision
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
CHARTS = ("spend-over-time", "phase-breakdown", "fleet-heatmap")
RUNS = 5
DRAWN = (
    "() => "
    + " && ".join(
        f'!!document.querySelector(\'[data-chart="{c}"][data-drawn="true"]\')' for c in CHARTS
    )
    + " && !!document.querySelector('[data-testid=\"mtd-spend\"]')"
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="*", default=["/"])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--shots", type=Path, default=Path("var/bench"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    args.shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=args.chromium, headless=True, args=FLAGS
        )
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.goto(f"{args.base}/login")
        page.fill("#email", "demo@example.com")
        page.fill("#password", "demo")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{args.base}/")
        cookies = context.cookies()
        context.close()
        for path in args.paths:
            times = []
            for run in range(RUNS):
                cold = browser.new_context(viewport={"width": 1280, "height": 800})
                cold.add_cookies(cookies)  # type: ignore[arg-type]
                tab = cold.new_page()
                start = time.perf_counter()
                tab.goto(f"{args.base}{path}")
                tab.wait_for_function(DRAWN, timeout=30_000, polling=20)
                times.append(time.perf_counter() - start)
                if run == RUNS - 1:
                    name = path.strip("/").replace("/", "_") or "overview"
                    tab.screenshot(path=str(args.shots / f"{name}.png"), full_page=True)
                cold.close()
            runs = ", ".join(f"{t:.2f}" for t in times)
            print(f"{path}: charts drawn in {runs} s (best {min(times):.2f} s)")
        browser.close()


if __name__ == "__main__":
    main()
