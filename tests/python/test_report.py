"""scripts/report.py: one self-contained, deterministic HTML page per output folder (the page in a
real browser: tests/browser/test_report.py)."""
import json
import os
import re
import stat
import subprocess
import sys
import threading
import time

import pytest

from output_folders import (SCRIPTS, damaged_copy, edit_json, folders, import_scripts, replace_once, run_script,  # noqa: F401
                            run_scripts)  # (folders is a fixture)

plot, report = import_scripts()

FIGURES = {"run": 3, "fixture": 3, "compare": 4, "sweep": 5}


@pytest.fixture(scope="module")
def pages(folders, tmp_path_factory):
    """report.py twice per folder kind (-o a.html, b.html), two at a time: {kind: [(CompletedProcess, page)] * 2}."""
    root = tmp_path_factory.mktemp("pages")
    calls, where = [], []
    for kind in sorted(FIGURES):
        for k in ("a", "b"):
            calls.append(("report.py", folders[kind], "-o", root / f"{kind}-{k}.html"))
            where.append((kind, root / f"{kind}-{k}.html"))
    result = {}
    for (kind, page), r in zip(where, run_scripts(calls)):
        result.setdefault(kind, []).append((r, page))
    return result


def html_of(pages, kind):
    r, page = pages[kind][0]
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{page}\n"
    return page.read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", sorted(FIGURES))
def test_page_is_self_contained(pages, kind):
    text = html_of(pages, kind)
    assert text.startswith("<!DOCTYPE html>")
    assert "<script" not in text and " src=" not in text and "@import" not in text
    assert "<link rel=\"stylesheet\"" not in text
    assert all(h.startswith("#") or h.startswith("data:") for h in re.findall(r'href="([^"]*)"', text))
    # the only URLs left are XML namespace names, which a browser never fetches
    assert "http" not in re.sub(r'xmlns(:\w+)?="[^"]*"', "", text)
    assert text.count('<svg class="mpl"') == FIGURES[kind]
    assert len(set(re.findall(r'\bid="([^"]+)"', text))) == len(re.findall(r'\bid="([^"]+)"', text))   # ids unique


@pytest.mark.parametrize("kind", sorted(FIGURES))
def test_same_folder_same_bytes(pages, kind):
    (_, a), (_, b) = pages[kind]
    assert a.read_bytes() == b.read_bytes()


def test_default_page_is_dir_report_html(folders, tmp_path):
    d = damaged_copy(folders["fixture"], tmp_path / "run", {})
    r = run_script("report.py", d)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{d / 'report.html'}\n"
    assert (d / "report.html").read_text().count("<svg") >= 6
    assert not [n for n in os.listdir(d) if n.startswith(".")]   # no temporary file left


def test_tables_hold_the_summary_metrics(pages, folders):
    text = html_of(pages, "compare")
    for header in ("policy", "jobs", "completed", "mean JCT (", "median JCT (", "p95 JCT (", "mean queueing delay (",
                   "makespan (", "utilisation (%)"):
        assert f"<th>{header}" in text
    for policy in ("fifo", "srtf", "las"):
        s = json.load(open(os.path.join(folders["compare"], policy, "summary.json")))
        row = re.search(r'<tr><td class="policy"><span[^>]*></span>' + policy + r'</td>(.*?)</tr>', text).group(1)
        assert f'<td class="num">{s["jobs_read"]:,}</td>' in row
        assert f'title="{s["jct_mean_s"]:,.3f} s"' in row
        assert f'<td class="num">{100 * s["utilization"]:.1f}</td>' in row
    assert "<h1>hetsim report: " in text

    text = html_of(pages, "sweep")
    assert "Mean over 3 seeds" in text and "Every point (12 completed)" in text
    assert "<th>cluster scale (node copies)</th>" in text
    assert "hetsim report: report-sweep" in text


def test_settings_and_versions(pages):
    text = html_of(pages, "fixture")
    for key, value in (("cluster", "fixture-8"), ("trace", "fixture.csv"), ("policy", "srtf"), ("seed", "0")):
        assert f"<tr><th>{key}</th><td>{value}</td></tr>" in text
    assert "<tr><th>hetsim</th><td>0.2.0 (hand-made fixture)</td></tr>" in text
    assert f"<tr><th>matplotlib</th><td>{plot.matplotlib.__version__}</td></tr>" in text
    # a CLI run's summary.json `settings` (spec keys the fixed rows do not name) are shown too
    text = html_of(pages, "run")
    assert "<tr><th>interval_s</th><td>0</td></tr>" in text
    assert "<tr><th>heet_round_s</th><td>120</td></tr>" in text
    assert "<tr><th>schedule_on_arrival</th><td>false</td></tr>" in text
    text = html_of(pages, "sweep")
    assert "<tr><th>cluster</th><td>default</td></tr>" in text          # from point.json
    assert "<tr><th>cluster scale (node copies)</th><td>1, 2</td></tr>" in text


def test_run_timeline_uses_the_allocations_and_queue_columns(pages):
    text = html_of(pages, "fixture")
    tl = text[text.index('<section id="timeline">'):text.index('<section id="settings">')]
    assert "one per allocation, from t.allocations.csv" in tl
    assert "Source: queued_jobs of t.utilization.csv." in tl
    rects = re.findall(r'<rect [^>]*fill="([^"]+)"><title>([^<]*)</title>', tl)
    assert len(rects) == 5
    titles = [t for _, t in rects]
    assert sum(t.startswith("b, allocation") for t in titles) == 2               # preempted once
    mixed = [c for c, t in rects if t.startswith("c, ")]
    assert mixed == [plot.MIXED_COLOUR]                                          # v100+t4
    assert any("preempted" in t for t in titles)
    assert "e: rejected at admission (needs 16 GPUs, the cluster has 8)" in tl
    for chart in ("timeline-jobs", "timeline-queue", "timeline-busy"):
        assert f'id="{chart}"' in tl
    assert ">running jobs</span>" in tl                                          # running_jobs column


def test_run_timeline_falls_back_to_jobs_csv(folders, tmp_path):
    def drop_queue_columns(text):
        lines = text.splitlines()
        keep = [i for i, c in enumerate(lines[0].split(",")) if c not in ("queued_jobs", "running_jobs")]
        return "\n".join(",".join(line.split(",")[i] for i in keep) for line in lines) + "\n"

    d = damaged_copy(folders["fixture"], tmp_path / "old", {"t.allocations.csv": None,
                                                           "t.utilization.csv": drop_queue_columns})
    r = run_script("report.py", d)
    assert r.returncode == 0, r.stderr
    tl = (d / "report.html").read_text()
    assert "Bars from jobs.csv" in tl and "the folder has no *.allocations.csv" in tl
    assert "reconstructed from jobs.csv (arrival to first start" in tl
    assert len(re.findall(r'<rect [^>]*><title>', tl)) == 4                     # one bar per started job


def test_real_run_page_has_a_timeline(pages):
    text = html_of(pages, "run")
    assert '<section id="timeline">' in text and "Source: timeline.utilization.csv" in text
    for kind in ("compare", "sweep"):
        assert '<section id="timeline">' not in html_of(pages, kind)


def test_timeline_caps_the_job_rows(tmp_path):
    d = tmp_path / "many"
    d.mkdir()
    rows = ["job_id,submit_s,start_s,finish_s,jct_s,queueing_s,gpus,requested_gpus,gpu_types,preemptions,restarts,"
            "restart_s,gpu_s,status,reason"]
    for i in range(350):
        rows.append(f"j{i},{i * 10},{i * 10},{i * 10 + 100},100,0,1,1,v100,0,0,0,100,completed,")
    (d / "jobs.csv").write_text("\n".join(rows) + "\n")
    (d / "summary.json").write_text(json.dumps({"jobs_read": 350, "completed": 350, "jct_mean_s": 100.0,
                                                "utilization": 0.1, "end_s": 3590.0, "policy": "fifo",
                                                "cluster": "c", "trace": "t.csv", "seed": 0}))
    r = run_script("report.py", d, "-o", tmp_path / "p.html")
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "p.html").read_text()
    assert "Showing the first 300 of 350 jobs (trace order)." in text
    assert len(re.findall(r'<rect [^>]*><title>j\d+, allocation', text)) == 300


def test_strings_are_escaped(folders, tmp_path):
    d = damaged_copy(folders["fixture"], tmp_path / "evil", {
        "summary.json": edit_json(lambda s: s.update(policy="<b>bold</b>&co", cluster="<script>alert(1)</script>")),
        "jobs.csv": replace_once("\na,", "\n<i>a</i>,"),
        "t.allocations.csv": replace_once("\na,", "\n<i>a</i>,")})
    r = run_script("report.py", d)
    assert r.returncode == 0, r.stderr
    text = (d / "report.html").read_text()
    assert "<b>bold</b>" not in text and "<script>" not in text and "<i>a</i>" not in text
    assert "&lt;b&gt;bold&lt;/b&gt;&amp;co" in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;i&gt;a&lt;/i&gt;, allocation 0" in text


def _one_line_error(r, prefix):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), r.stderr
    return lines[0]


def test_bad_input_exits_2_naming_the_folder_or_file(folders, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    _one_line_error(run_script("report.py", empty), f"report: {empty}: not a hetsim output folder")

    def check(argv, prefix):
        code = report.main([str(a) for a in argv])
        captured = capsys.readouterr()
        r = type("R", (), {"returncode": code, "stdout": captured.out, "stderr": captured.err})
        return _one_line_error(r, prefix)

    check([tmp_path / "nowhere"], f"report: {tmp_path / 'nowhere'}: no such folder")
    def damaged(name, changes):
        return damaged_copy(folders["fixture"], tmp_path / name, changes)

    bad = damaged("bad-alloc", {"t.allocations.csv": "job_id,start_s\na,0\n"})
    check([bad], f"report: {bad / 't.allocations.csv'}: missing columns allocation, end_s, gpus, gpu_type")
    bad = damaged("bad-alloc-number", {"t.allocations.csv": replace_once(",3600.000000,4", ",later,4")})
    check([bad], f"report: {bad / 't.allocations.csv'}: line 2: column end_s: not a number: 'later'")
    bad = damaged("bad-queue", {"t.utilization.csv": replace_once("0.500000,0,1", "0.500000,x,1")})
    check([bad], f"report: {bad / 't.utilization.csv'}: line 2: column queued_jobs: not a number: 'x'")
    bad = damaged("bad-summary", {"summary.json": "[1, 2]"})
    check([bad], f"report: {bad / 'summary.json'}: not a summary")
    target = tmp_path / "no" / "such" / "folder.html"
    check([folders["fixture"], "-o", target],
          f"report: {target}: cannot write file: its folder {target.parent} does not exist")


def test_number_formats():
    assert report.fmt_number(975023.097) == "975,023"
    assert report.fmt_number(270.84) == "270.8"
    assert report.fmt_number(24.98) == "24.98"
    assert report.fmt_number(0.5) == "0.500"
    assert report.fmt_number(0) == "0"
    assert report.fmt_number(float("nan")) == report.fmt_number(None) == "\u2014"
    assert report.fmt_count(1627) == "1,627"
    assert report.fmt_percent(0.508333) == "50.8"


def _report_in_process(capsys, *argv):
    code = report.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return type("R", (), {"returncode": code, "stdout": captured.out, "stderr": captured.err})


def test_o_keeps_a_symlink_and_replaces_what_it_points_to(folders, tmp_path, capsys):
    real = tmp_path / "pages" / "real.html"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    r = _report_in_process(capsys, folders["fixture"], "-o", link)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().startswith("<!DOCTYPE html>")
    assert sorted(os.listdir(real.parent)) == ["real.html"] and sorted(os.listdir(tmp_path)) == ["link.html", "pages"]


def test_o_writes_a_fifo_in_place_and_refuses_one_nobody_reads(folders, tmp_path, capsys):
    fifo = tmp_path / "page.fifo"
    os.mkfifo(fifo)
    _one_line_error(_report_in_process(capsys, folders["fixture"], "-o", fifo),
                    f"report: {fifo}: cannot write file: no process reads this FIFO")
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    try:
        deadline = time.monotonic() + 10
        r = None
        while r is None or (r.returncode == 2 and "no process reads" in r.stderr and time.monotonic() < deadline):
            r = _report_in_process(capsys, folders["fixture"], "-o", fifo)   # until the reader has opened it
    finally:
        if reader.is_alive() and not got:    # never opened for writing: let the reader's open() return
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        reader.join(timeout=30)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got[0].decode("utf-8").startswith("<!DOCTYPE html>") and got[0].endswith(b"</html>\n")
    assert sorted(os.listdir(tmp_path)) == ["page.fifo"]


def test_o_writes_a_device_in_place_and_refuses_a_folder(folders, tmp_path, capsys):
    # A private null device, never the system's /dev/null: a writer that replaces its target (the
    # bug under test) would turn /dev/null into a regular file for every process on the machine.
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("cannot create a device node here (mknod needs CAP_MKNOD)")
    r = _report_in_process(capsys, folders["fixture"], "-o", null)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.stat(null).st_mode) and sorted(os.listdir(tmp_path)) == ["null"]
    _one_line_error(_report_in_process(capsys, folders["fixture"], "-o", tmp_path),
                    f"report: {tmp_path}: is a directory, not a file")


def test_plot_writes_figures_by_the_same_rules(folders, tmp_path):
    figs = tmp_path / "figs"
    figs.mkdir()
    real = tmp_path / "kept.png"
    real.write_bytes(b"old")
    (figs / "jct_cdf.png").symlink_to(real)
    os.mkfifo(figs / "queueing_cdf.pdf")    # nobody reads it: savefig used to wait for a reader forever
    r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "plot.py"), folders["fixture"], "-o", figs],
                       capture_output=True, text=True, timeout=120)
    _one_line_error(r, f"plot: {figs / 'queueing_cdf.pdf'}: cannot write file: no process reads this FIFO")
    assert (figs / "jct_cdf.png").is_symlink()
    assert real.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(os.listdir(figs)) == ["jct_cdf.pdf", "jct_cdf.png", "queueing_cdf.pdf"]   # no temporary left


def test_point_json_of_another_shape_is_bad_input(folders, tmp_path, capsys):
    point = "points/fifo__cluster_scale=1__seed=0/point.json"
    bad = damaged_copy(folders["sweep"], tmp_path / "sweep", {point: edit_json(lambda p: p.update(params=["lr", 0.1]))})
    _one_line_error(_report_in_process(capsys, bad), f"report: {bad / point}: key 'params': not an object: ['lr', 0.1]")


@pytest.mark.parametrize("script", ["report.py", "plot.py"])
def test_a_closed_stdout_is_no_traceback(folders, tmp_path, script):
    """`report.py DIR | head -0`: the reader is gone before the path is printed; the file is still written."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, script), folders["fixture"], "-o", tmp_path / "out"],
                           stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert (r.returncode, r.stderr) == (0, "")
    assert (tmp_path / "out").exists()


def test_o_on_the_folders_own_data_or_empty_is_refused(folders, tmp_path, capsys):
    """report -o DIR/jobs.csv replaced the run's results with the page (exit 0); -o '' wrote DIR/report.html."""
    run = damaged_copy(folders["fixture"], tmp_path / "run", {})
    jobs = (run / "jobs.csv").read_bytes()
    for name in ("jobs.csv", "summary.json"):
        assert report.main([str(run), "-o", str(run / name)]) == 2
        assert f"report: {run / name}: is a data file of {run}: the page would replace it" in capsys.readouterr().err
    assert (run / "jobs.csv").read_bytes() == jobs
    assert report.main([str(run), "-o", ""]) == 2
    assert "report: -o: an empty path" in capsys.readouterr().err
    assert not (run / "report.html").exists()
    assert report.main([str(run), "-o", str(run / "page.html")]) == 0   # a page beside the data is fine

