"""Take the README's screenshots: one per page, at the first step of its guided tour, in
headless Chromium, as a 1280 x 720 projector shows it.

Run ``python -m tests.e2e.readme_screenshots`` from the project root; it serves the
app on a free loopback port and writes ``data/screenshots/<page>.png`` (1280 x 720
viewport, device scale 1), and the home page's thumbnails: each page's main chart at its
defaults, cut out of the page as the app draws it (``explorer_ui/thumbnails/<page>.png``,
shipped with the package). Not a test: the e2e tests save their own screenshots to
``tests/e2e/screenshots/`` for review.
"""
from __future__ import annotations

import sys

from explorer_ui.thumbnails import THUMBNAIL_DIR, thumbnail_path
from tests.support import CHROMIUM, CHROMIUM_ARGS, ROOT, serve_app, wait_for_app

OUT = ROOT / "data" / "screenshots"
#: (file name, URL path) in the app's reading order; "" is the home page.
PAGES = [
    ("home", ""),
    ("mondrian_process", "mondrian_process"),
    ("kernel_convergence", "kernel_convergence"),
    ("lifetime_sweep", "lifetime_sweep"),
    ("lifetime_posterior", "lifetime_posterior"),
    ("partition_gp", "partition_gp"),
    ("kernel_vs_forest", "kernel_vs_forest"),
    ("online_forest", "online_forest"),
    ("inference", "inference"),
    ("amf", "amf"),
]


def main() -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with serve_app(".readme_server.log") as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        page.goto(url)
        wait_for_app(page, timeout=120_000)
        # thumbnails first: the home page's screenshot shows them
        THUMBNAIL_DIR.mkdir(exist_ok=True)
        for name, path in PAGES:
            if not path:
                continue
            page.goto(f"{url}/{path}")
            wait_for_app(page, timeout=180_000)
            chart = page.locator(".st-key-main_chart .js-plotly-plot").first
            chart.locator(".main-svg").first.wait_for(timeout=60_000)
            page.mouse.move(0, 0)  # no hover label or toolbar in the picture
            chart.screenshot(path=str(thumbnail_path(name)))
            print(f"thumbnail {thumbnail_path(name)}", flush=True)
        for i, (name, path) in enumerate(PAGES, 1):
            page.goto(f"{url}/{path}" + ("?tour=1" if path else ""))
            wait_for_app(page, timeout=180_000)
            if path:  # Plotly has drawn the main chart
                page.wait_for_selector(".st-key-main_chart .js-plotly-plot .main-svg",
                                       timeout=60_000)
            page.screenshot(path=str(OUT / f"{name}.png"))
            print(f"[{i}/{len(PAGES)}] {OUT / (name + '.png')}", flush=True)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
