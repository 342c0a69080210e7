"""scripts/report.py's pages in a real headless browser (Chromium driven by Selenium).

Makes a run folder (with --timeline), a compare folder and a sweep folder with the hetsim CLI
(HETSIM_CLI, default build/release/hetsim), plus the hand-made run folder with the new timeline
files (tests/python/data/report-run); writes each page with report.py, opens it from file:// with
the network unused, and checks: no console message at level SEVERE (JavaScript errors, failed
loads; the check is shown to fail on a page with a deliberate error), the rendered text holds the
tables (headers, policy names, numbers from summary.json), the figures are drawn SVGs with their
titles, and the run pages have the timeline. Screenshots (full page, PNG) are kept in the test's
temporary folder and copied to HETSIM_SCREENSHOT_DIR when it is set.
Skips when chromium, chromedriver or python3-selenium is absent (Debian: apt-get install chromium
chromium-driver python3-selenium; scripts/setup.sh installs them). HETSIM_CHROMIUM and
HETSIM_CHROMEDRIVER name other binaries.

    HETSIM_CLI=build/release/hetsim /usr/bin/python3 -m pytest -q tests/browser/test_report.py
"""
import json
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from output_folders import make_folders, run_scripts  # noqa: E402



def _find(env, *candidates):
    """The program named by the environment variable env (when set, only it), else the first candidate found."""
    if os.environ.get(env):
        return os.environ[env] if os.path.exists(os.environ[env]) else None
    return next((p for p in candidates if p and os.path.exists(p)), None)


CHROMIUM = _find("HETSIM_CHROMIUM", shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser"))
CHROMEDRIVER = _find("HETSIM_CHROMEDRIVER", shutil.which("chromedriver"), "/usr/bin/chromedriver")
FIGURES = {"run": 3, "fixture": 3, "compare": 4, "sweep": 5}


@pytest.fixture(scope="module")
def driver():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("python3-selenium is not installed (apt-get install python3-selenium): browser test skipped")
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.skip(f"{'chromium' if not CHROMIUM else 'chromedriver'} not found (apt-get install chromium chromium-driver, "
                    "or set HETSIM_CHROMIUM / HETSIM_CHROMEDRIVER): browser test skipped")
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                "--no-first-run", "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
                "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    d.set_page_load_timeout(30)
    yield d
    d.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """{kind: (output folder, page path)} for run, compare, sweep and the hand-made fixture."""
    root = tmp_path_factory.mktemp("browser")
    folders = make_folders(str(root))
    kinds = sorted(FIGURES)
    results = run_scripts([("report.py", folders[k]) for k in kinds])
    out = {}
    for k, r in zip(kinds, results):
        assert r.returncode == 0, r.stderr
        out[k] = (folders[k], r.stdout.strip())
    return out


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return tmp_path_factory.mktemp("screenshots")


def load(driver, path):
    """Opens the page and returns the console messages logged while it loaded."""
    driver.get_log("browser")                      # drop what earlier pages left
    driver.get("file://" + os.path.abspath(path))
    assert driver.execute_script("return document.readyState") == "complete"
    return driver.get_log("browser")


def console_errors(messages):
    return [m for m in messages if m.get("level") == "SEVERE"]


def assert_no_console_errors(messages, page):
    errors = console_errors(messages)
    assert not errors, f"{page}: console errors: " + "; ".join(m.get("message", "") for m in errors)


def screenshot(driver, name, shots):
    """A full-page PNG in the test's temporary folder (and in HETSIM_SCREENSHOT_DIR when set)."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(max(height, 600), 16000))
    path = os.path.join(str(shots), f"report-{name}.png")
    assert driver.save_screenshot(path)
    driver.set_window_size(1280, 900)
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    target = os.environ.get("HETSIM_SCREENSHOT_DIR")
    if target:
        os.makedirs(target, exist_ok=True)
        shutil.copy(path, os.path.join(target, os.path.basename(path)))
    return path


def test_the_console_check_catches_a_page_with_a_javascript_error(driver, tmp_path):
    bad = tmp_path / "broken.html"
    bad.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><link rel='icon' href='data:,'></head>"
                   "<body><p>deliberately broken</p><script>window.onload = function () { undefinedFunction(); };"
                   "</script></body></html>")
    messages = load(driver, bad)
    errors = console_errors(messages)
    assert errors and "undefinedFunction" in errors[0]["message"], messages
    with pytest.raises(AssertionError, match="undefinedFunction"):
        assert_no_console_errors(messages, bad)
    good = tmp_path / "fine.html"
    good.write_text("<!DOCTYPE html><html><head><link rel='icon' href='data:,'></head><body><p>fine</p></body></html>")
    assert_no_console_errors(load(driver, good), good)


def _text(driver):
    return driver.execute_script("return document.body.innerText")


def _figures(driver):
    """[(title, rendered width, height)] of the matplotlib figures."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('figure svg.mpl')).map(function (s) {"
        "  var r = s.getBoundingClientRect(); var t = s.querySelector('title');"
        "  return [t ? t.textContent : '', r.width, r.height]; });")


def _check_page(driver, kind, pages, shots):
    folder, page = pages[kind]
    assert_no_console_errors(load(driver, page), page)
    text = _text(driver)
    for header in ("policy", "jobs", "completed", "mean JCT (", "median JCT (", "p95 JCT (", "mean queueing delay (",
                   "makespan (", "utilisation (%)", "Figures", "Settings", "Versions"):
        assert header in text, (kind, header)
    figs = _figures(driver)
    assert len(figs) == FIGURES[kind], figs
    titles = [t for t, _, _ in figs]
    assert any("job completion time CDF" in t for t in titles), titles
    assert any("busy GPUs over time" in t for t in titles), titles
    for t, w, h in figs:
        assert w > 300 and h > 150, (t, w, h)      # drawn, not collapsed
    # the figure captions repeat the titles as text
    for t in titles:
        assert t.split(":")[-1].strip().split("\n")[0] in text
    return folder, text, titles


def _row_text(driver, table_caption, first_cell):
    """Rendered text of the first row whose first cell is first_cell, in the table whose caption has table_caption."""
    return driver.execute_script(
        "var caption = arguments[0], first = arguments[1], out = null;"
        "document.querySelectorAll('table').forEach(function (t) {"
        "  var c = t.querySelector('caption'); if (!c || c.textContent.indexOf(caption) < 0) return;"
        "  t.querySelectorAll('tbody tr').forEach(function (r) {"
        "    if (out === null && r.cells[0].textContent.trim() === first) out = r.innerText; }); });"
        "return out;", table_caption, first_cell)


def test_run_page(driver, pages, shots):
    folder, text, _ = _check_page(driver, "run", pages, shots)
    s = json.load(open(os.path.join(folder, "summary.json")))
    assert "hetsim report: srtf on default" in text
    row = _row_text(driver, "Summary", "srtf")
    assert row is not None and f"{s['jobs_read']:,}" in row.split() and f"{100 * s['utilization']:.1f}" in row.split()
    assert driver.execute_script(f"return document.querySelectorAll('td[title=\"{s['jct_mean_s']:,.3f} s\"]').length") == 1
    # a binary that writes FILE.allocations.csv next to the timeline gets bars per allocation
    has_allocations = any(n.endswith(".allocations.csv") for n in os.listdir(folder))
    _check_timeline(driver, text, expect_allocations="timeline.allocations.csv" if has_allocations else None)
    assert s["hetsim_version"] in text
    screenshot(driver, "run", shots)


def _check_timeline(driver, text, expect_allocations):
    assert "Timeline" in text and "Jobs by GPU type" in text and "Queue length" in text and "Busy GPUs per type" in text
    counts = driver.execute_script(
        "return ['timeline-jobs', 'timeline-queue', 'timeline-busy'].map(function (id) {"
        "  var s = document.getElementById(id); if (!s) return null; var r = s.getBoundingClientRect();"
        "  return [s.querySelectorAll('rect').length, s.querySelectorAll('path').length, r.width]; });")
    assert all(c is not None for c in counts), counts
    assert counts[0][0] > 0 and counts[1][1] > 0 and counts[2][1] > 0 and min(c[2] for c in counts) > 500, counts
    if expect_allocations:
        assert f"one per allocation, from {expect_allocations}" in text
    else:
        assert "Bars from jobs.csv" in text


def test_fixture_run_page_with_allocations(driver, pages, shots):
    _, text, _ = _check_page(driver, "fixture", pages, shots)
    _check_timeline(driver, text, expect_allocations="t.allocations.csv")
    assert "Source: queued_jobs of t.utilization.csv." in text
    # the bar of the preempted job's second allocation carries its tooltip
    tips = driver.execute_script("return Array.from(document.querySelectorAll('#timeline-jobs rect > title'))"
                                 ".map(function (t) { return t.textContent; });")
    assert len(tips) == 5 and any(t.startswith("b, allocation 4") for t in tips), tips
    screenshot(driver, "fixture", shots)


def test_compare_page(driver, pages, shots):
    folder, text, titles = _check_page(driver, "compare", pages, shots)
    assert "Policy comparison: 3 policies (fifo, srtf, las)" in text
    for policy in ("fifo", "srtf", "las"):
        s = json.load(open(os.path.join(folder, policy, "summary.json")))
        row = _row_text(driver, "Per policy", policy)
        assert row is not None, policy
        assert f"{s['completed']:,}" in row.split()
    assert any("JCT relative to fifo" in t for t in titles)
    assert driver.execute_script("return document.getElementById('timeline')") is None
    screenshot(driver, "compare", shots)


def test_sweep_page(driver, pages, shots):
    folder, text, titles = _check_page(driver, "sweep", pages, shots)
    assert "hetsim report: report-sweep" in text
    assert "Mean over 3 seeds" in text and "Every point (12 completed)" in text
    assert any("JCT vs scale" in t for t in titles), titles
    s = json.load(open(os.path.join(folder, "points", "srtf__cluster_scale=2__seed=1", "summary.json")))
    found = driver.execute_script(f"return document.querySelectorAll('td[title=\"{s['jct_p95_s']:,.3f} s\"]').length")
    assert found >= 1
    screenshot(driver, "sweep", shots)
