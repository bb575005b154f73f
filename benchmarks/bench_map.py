"""How long `palace map` takes on a large palace: building the map's data, writing the
page, the page's first draw and a move of its time slider in headless Chromium.

    .venv/bin/python benchmarks/bench_scale.py --sizes 4 --keep /tmp/scale4   # about 30,000 drawers
    .venv/bin/python benchmarks/bench_map.py --palace /tmp/scale4/palace [--runs 3] [--moves 30] [NAME...]

Prints, with the machine's load (``uptime``) and its CPU model and flags:

- **data**: :meth:`palace.core.Palace.map` in a fresh process, the first call (imports
  and a cold page cache included) and the median of ``--runs`` more;
- **page**: :meth:`palace.core.Palace.map_page` and writing the file (median of runs),
  and its size;
- **first draw**: in Debian's headless Chromium (``unshare -n``, no network, where the
  system allows), ``performance.now()`` from the script's start to the end of its first
  draw, and from navigation start (parsing the page included), median of ``--runs`` loads;
- **slider**: ``--moves`` moves of the slider to days spread over the map's range (a
  fixed seed), each timed by the page (``performance.now()`` around the redraw): p50,
  p95, max.

The map is the default one (the busiest entities, at most 200 nodes), or the one of the
NAMEs given.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--window-size=1400,1000", "--remote-debugging-pipe")


def cpu() -> str:
    """The CPU's model and the flags that decide the speed of numeric code."""
    model, flags = "unknown", []
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name") and model == "unknown":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                flags = line.split(":", 1)[1].split()
                break
    except OSError:
        pass
    wanted = [f for f in flags if f.startswith(("avx", "amx", "sse4", "fma", "f16c"))]
    return f"{model}; {os.cpu_count()} cores; flags: {' '.join(wanted) or 'n/a'} ({len(flags)} in all)"


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        one, five, fifteen = os.getloadavg()
        return f"load average: {one:.2f}, {five:.2f}, {fifteen:.2f}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def browser(folder: Path):
    """A headless Chromium driven by selenium, in a network namespace with no network
    where ``unshare -n`` works; and whether it is."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        raise SystemExit("needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
    isolated = bool(shutil.which("unshare")) and subprocess.run(["unshare", "-n", "true"]).returncode == 0
    launcher = chromium
    if isolated:
        launcher = str(folder / "chromium-no-network")
        Path(launcher).write_text(f'#!/bin/sh\nexec unshare -n {chromium} "$@"\n')
        os.chmod(launcher, 0o755)
    options = webdriver.ChromeOptions()
    options.binary_location = launcher
    for flag in (*FLAGS, f"--user-data-dir={folder / 'profile'}"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(driver)), isolated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="names to centre the map on (default: the busiest entities)")
    parser.add_argument("--palace", type=Path, required=True, help="a palace, e.g. kept by bench_scale.py --keep")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args()

    from palace.core import Palace

    print(f"uptime: {uptime()}")
    print(f"cpu: {cpu()}")
    with Palace.open(args.palace, create=False) as palace:
        drawers = palace.status().drawers
        started = time.perf_counter()
        data = palace.map(tuple(args.names))
        first = time.perf_counter() - started
        build, render = [], []
        with tempfile.TemporaryDirectory(prefix="palace-map-") as tmp:
            page = Path(tmp) / "map.html"
            for _ in range(args.runs):
                started = time.perf_counter()
                data = palace.map(tuple(args.names))
                build.append(time.perf_counter() - started)
                started = time.perf_counter()
                page.write_text(Palace.map_page(data), encoding="utf-8")
                render.append(time.perf_counter() - started)
            print(f"palace: {args.palace} ({drawers:,} drawers); map: {len(data.nodes)} nodes, {len(data.edges)} edges,"
                  f" {len(data.facts):,} facts, {len(data.changes)} changes; {data.entities_shown} of"
                  f" {data.entities_total:,} entities drawn")
            print(f"data:  first {first * 1000:8.1f} ms (imports included), then median {statistics.median(build) * 1000:8.1f}"
                  f" ms over {args.runs}")
            print(f"page:  median {statistics.median(render) * 1000:8.1f} ms to render and write, {page.stat().st_size / 1024:,.0f} KB")
            driver, isolated = browser(Path(tmp))
            try:
                draws, loads, moves = [], [], []
                for _ in range(args.runs):
                    driver.get(page.as_uri())
                    while driver.execute_script("return document.body.getAttribute('data-ready')") != "true":
                        time.sleep(0.05)
                    timings = driver.execute_script("return window.palaceMap.timings")
                    draws.append(timings["firstDraw"])
                    loads.append(timings["sinceNavigation"])
                outside = driver.execute_script("return performance.getEntriesByType('resource').length")
                first_day = time.strptime(data.first_day, "%Y-%m-%d")
                span = max(1, int((time.mktime(time.strptime(data.last_day, "%Y-%m-%d")) - time.mktime(first_day))
                                  // 86400))
                days = [time.strftime("%Y-%m-%d", time.localtime(time.mktime(first_day) + 86400 * d + 43200))
                        for d in sorted(random.Random(7).sample(range(span + 1), min(args.moves, span + 1)))]
                for day in days:
                    moves.append(driver.execute_script("""
                        const slider = document.getElementById('day');
                        const first = Date.parse(window.palaceMap.data.first_day + 'T00:00:00Z');
                        slider.value = String(Math.round((Date.parse(arguments[0] + 'T00:00:00Z') - first) / 864e5));
                        slider.dispatchEvent(new Event('input', {bubbles: true}));
                        return window.palaceMap.timings.lastSlider;""", day))
            finally:
                driver.quit()
    print(f"first draw: median {statistics.median(draws):7.1f} ms from the script's start,"
          f" {statistics.median(loads):7.1f} ms from navigation start ({args.runs} loads; Chromium"
          f" {'in a network namespace with no network' if isolated else 'with background networking off'};"
          f" {outside} outside requests)")
    print(f"slider: {len(moves)} moves, p50 {percentile(moves, 0.5):6.2f} ms, p95 {percentile(moves, 0.95):6.2f} ms,"
          f" max {max(moves):6.2f} ms")
    print(f"uptime: {uptime()}")


if __name__ == "__main__":
    sys.exit(main())
