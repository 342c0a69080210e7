"""scripts/plot.py on the three kinds of output folder (run, compare, sweep) and on bad input."""
import io
import json
import os
import struct

import pytest

from output_folders import (FIXTURE_RUN, damaged_copy, edit_json, folders, import_scripts, replace_once, run_script,  # noqa: F401
                            run_scripts)  # (folders is a fixture)

plot, _ = import_scripts()

EXPECTED = {
    "run": ["jct_cdf", "queueing_cdf", "utilization"],
    "fixture": ["jct_cdf", "queueing_cdf", "utilization"],
    "compare": ["jct_cdf", "queueing_cdf", "jct_ratio", "utilization"],
    "sweep": ["jct_cdf", "queueing_cdf", "jct_vs_load", "jct_ratio", "utilization"],
}


def png_dpi(path):
    """Horizontal and vertical dots per inch from a PNG's pHYs chunk (None without one)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"pHYs":
            x, y, unit = struct.unpack(">IIB", data[pos + 8:pos + 17])
            assert unit == 1   # pixels per metre
            return x * 0.0254, y * 0.0254
        pos += 12 + length
    return None


@pytest.fixture(scope="module")
def plotted(folders, tmp_path_factory):
    """plot.py run twice on each folder kind (a, b), two runs at a time: {kind: [(CompletedProcess, folder)] * 2};
    the fixture's second run writes to its default folder, DIR/figures."""
    root = tmp_path_factory.mktemp("figures")
    default = root / "fixture-copy"
    damaged_copy(folders["fixture"], default, {})
    calls, where = [], []
    for kind in sorted(EXPECTED):
        for k in ("a", "b"):
            if kind == "fixture" and k == "b":
                calls.append(("plot.py", default))
                where.append((kind, default / "figures"))
            else:
                calls.append(("plot.py", folders[kind], "-o", root / kind / k))
                where.append((kind, root / kind / k))
    result = {}
    for (kind, folder), r in zip(where, run_scripts(calls)):
        result.setdefault(kind, []).append((r, folder))
    return result


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_every_folder_kind_gets_its_figures_as_pdf_and_png(plotted, kind):
    for r, out in plotted[kind]:
        assert r.returncode == 0, r.stderr
        names = sorted(os.listdir(out))
        assert names == sorted(f"{n}.{ext}" for n in EXPECTED[kind] for ext in ("pdf", "png"))
        assert [os.path.basename(p) for p in r.stdout.split()] == [f"{n}.{ext}" for n in EXPECTED[kind]
                                                                  for ext in ("pdf", "png")]
        assert all(os.path.samefile(os.path.dirname(p), out) for p in r.stdout.split())
        for n in EXPECTED[kind]:
            assert (out / f"{n}.pdf").read_bytes()[:5] == b"%PDF-"
            dpi = png_dpi(out / f"{n}.png")
            assert dpi is not None and min(dpi) >= 199.5, dpi


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_same_folder_gives_the_same_bytes(plotted, kind):
    (_, a), (_, b) = plotted[kind]
    assert sorted(os.listdir(a)) == sorted(os.listdir(b))
    for name in os.listdir(a):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert b"CreationDate" not in (a / "jct_cdf.pdf").read_bytes()


def _small_run(folder, total_gpus=2):
    """A run folder whose busy GPUs go 0..1 on a 2-GPU cluster: matplotlib's default ticks would be 0.5 apart."""
    os.makedirs(folder)
    with open(os.path.join(folder, "jobs.csv"), "w") as f:
        f.write("job_id,submit_s,start_s,finish_s,jct_s,queueing_s,gpus,requested_gpus,gpu_types,preemptions,"
                "restarts,restart_s,gpu_s,status,reason\n"
                "j1,0,0,40,40,0,1,1,v100,0,0,0,40,completed,\n"
                "j2,10,40,90,80,30,1,1,v100,0,0,0,50,completed,\n")
    summary = {"jobs_read": 2, "completed": 2, "rejected": 0, "unfinished": 0, "jct_mean_s": 60.0, "jct_p50_s": 60.0,
               "jct_p95_s": 78.0, "queueing_mean_s": 15.0, "makespan_s": 90.0, "utilization": 0.5,
               "end_s": 90.0, "cluster": "tiny", "trace": "tiny.csv", "policy": "fifo", "seed": 0}
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump(summary, f)
    with open(os.path.join(folder, "run.utilization.csv"), "w") as f:
        f.write(f"time_s,busy_gpus,total_gpus,utilization,busy_v100\n0,1,{total_gpus},0.5,1\n90,0,{total_gpus},0,0\n")
    return folder


def _figures(path):
    return {f.name: f for f in plot.figures(plot.load(str(path)))}


def test_integer_axes_have_integer_ticks_only(folders, tmp_path):
    tiny = _small_run(str(tmp_path / "tiny"))
    for path in (tiny, folders["run"], folders["compare"], folders["sweep"]):
        figs = _figures(path)
        try:
            axes = [a for a in figs["utilization"].fig.axes if a.get_visible()]
            for ax in axes:
                lo, hi = ax.get_ylim()
                shown = [t for t in ax.get_yticks() if lo <= t <= hi]
                assert len(shown) >= 2, (path, shown)
                assert all(float(t).is_integer() for t in shown), (path, shown)
        finally:
            for f in figs.values():
                plot.plt.close(f.fig)


def test_time_unit_follows_the_range():
    assert plot.time_unit(50).name == "seconds"
    assert plot.time_unit(500).name == "minutes"
    assert plot.time_unit(1500).name == "hours"
    assert plot.time_unit(7800).name == "hours"
    assert plot.time_unit(5e6).name == "days"


def test_hours_for_a_range_in_the_thousands_of_seconds(folders):
    # the hand-made run: JCTs 1,200-7,800 s, queueing up to 3,000 s, the run ends at 9,000 s
    figs = _figures(folders["fixture"])
    try:
        assert "hours" in figs["jct_cdf"].fig.axes[0].get_xlabel()
        assert "hours" in figs["queueing_cdf"].fig.axes[0].get_xlabel()
        assert figs["utilization"].fig.axes[-1].get_xlabel() == "simulated time (hours)"
        xmax = figs["utilization"].fig.axes[-1].get_xlim()[1]
        assert xmax == pytest.approx(2.5)   # 9,000 s
    finally:
        for f in figs.values():
            plot.plt.close(f.fig)


def test_cdf_panels_never_pool_points(folders):
    out = plot.load(folders["sweep"])
    f = plot.fig_jct_cdf(out, plot.Options())
    try:
        panels = [a for a in f.fig.axes if a.get_visible()]
        assert len(panels) == 2                                # cluster_scale 1 and 2
        assert [a.get_title() for a in panels] == ["scale = 1 (60 jobs)", "scale = 2 (60 jobs)"]
        for a in panels:
            assert len(a.get_lines()) == 2                     # fifo and srtf, one seed each
        assert "seed 0 of 3" in f.title
        assert "report-sweep" in f.title and "/" not in f.title
    finally:
        plot.plt.close(f.fig)


def test_error_bars_say_what_they_are(folders):
    out = plot.load(folders["sweep"])
    for errors, text in (("ci95", "95% CI of the mean over 3 seeds"), ("std", "standard deviation over 3 seeds")):
        f = plot.fig_jct_vs_load(out, plot.Options(errors=errors))
        try:
            assert text in f.title and text in f.caption
        finally:
            plot.plt.close(f.fig)


def test_student_t_quantiles():
    scipy_stats = pytest.importorskip("scipy.stats")
    for df in list(range(1, 31)) + [45, 100, 500]:
        assert plot.t975(df) == pytest.approx(scipy_stats.t.ppf(0.975, df), abs=0.03 if df > 30 else 5e-4)
    mean, half = plot.spread([1.0, 2.0, 3.0], "ci95")
    assert mean == 2.0 and half == pytest.approx(4.303 * 1.0 / 3 ** 0.5)
    assert plot.spread([1.0, 2.0, 3.0], "std") == (2.0, 1.0)
    assert plot.spread([5.0], "ci95") == (5.0, 0.0)


def test_ratio_baseline_is_fifo_by_default_and_selectable(folders):
    out = plot.load(folders["compare"])
    f = plot.fig_jct_ratio(out, plot.Options())
    assert "relative to fifo" in f.title
    plot.plt.close(f.fig)
    f = plot.fig_jct_ratio(out, plot.Options(baseline="srtf"))
    assert "relative to srtf" in f.title
    assert [t.get_text() for t in f.fig.axes[0].get_xticklabels()] == ["fifo", "las"]
    plot.plt.close(f.fig)


def test_policy_colours_are_fixed_and_stable():
    assert plot.policy_colour("fifo") == "#1f77b4"
    assert plot.policy_colour("srtf") == "#d62728"
    # another process gives a name outside the table the same colour (no salted hash())
    import subprocess
    import sys
    code = f"import sys; sys.path.insert(0, {plot.__file__.rsplit(os.sep, 1)[0]!r}); import plot; print(plot.policy_colour('my-policy'))"
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED=s)).stdout
            for s in ("1", "2")}
    assert outs == {plot.policy_colour("my-policy") + "\n"}


def test_titles_name_no_absolute_path(folders):
    for kind in ("run", "compare", "sweep"):
        for f in plot.figures(plot.load(folders[kind])):
            try:
                assert os.sep + "tmp" not in f.title and not any(os.sep in t.get_text() for t in f.fig.texts), f.title
            finally:
                plot.plt.close(f.fig)


def _one_line_error(r, prefix):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(prefix), lines[0]
    return lines[0]


class InProcess:
    """plot.main() in this process, as a CompletedProcess-like result (no interpreter start-up per case)."""

    def __init__(self, capsys, argv):
        with pytest.raises(SystemExit) as e:
            plot.main([str(a) for a in argv])
        captured = capsys.readouterr()
        self.returncode, self.stdout, self.stderr = e.value.code, captured.out, captured.err


def test_bad_folders_exit_2_with_one_line(folders, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    # the real command line once
    line = _one_line_error(run_script("plot.py", empty), f"plot: {empty}: not a hetsim output folder")
    assert "summary.json" in line
    check = lambda argv, prefix: _one_line_error(InProcess(capsys, argv), prefix)  # noqa: E731
    check([tmp_path / "nowhere"], f"plot: {tmp_path / 'nowhere'}: no such folder")
    f = tmp_path / "file.txt"
    f.write_text("x")
    check([f], f"plot: {f}: not a folder")

    def damaged(name, kind, changes):
        return damaged_copy(folders[kind], tmp_path / name, changes)

    bad = damaged("bad-jobs", "fixture", {"jobs.csv": replace_once("jct_s,", "jct_seconds,")})
    check([bad], f"plot: {bad / 'jobs.csv'}: missing column jct_s")
    bad = damaged("bad-number", "fixture", {"jobs.csv": replace_once("3600.000000,3600.000000", "soon,3600.000000")})
    check([bad], f"plot: {bad / 'jobs.csv'}: line 2: column finish_s: not a number: 'soon'")
    bad = damaged("bad-summary", "fixture", {"summary.json": "{\"jobs_read\": 5,"})
    check([bad], f"plot: {bad / 'summary.json'}: not valid JSON")
    bad = damaged("bad-compare", "compare", {"srtf": None})
    check([bad], f"plot: {bad / 'srtf' / 'summary.json'}: missing")
    bad = damaged("bad-util", "fixture", {"t.utilization.csv": "time_s,busy\n0,1\n"})
    check([bad], f"plot: {bad / 't.utilization.csv'}: missing columns busy_gpus, total_gpus")
    bad = damaged("bad-sweep", "sweep", {"points.csv": ""})
    check([bad], f"plot: {bad / 'points.csv'}: empty file")


def test_bad_options_exit_2(folders, tmp_path, capsys):
    check = lambda argv, prefix: _one_line_error(InProcess(capsys, argv), prefix)  # noqa: E731
    check([folders["sweep"], "-o", tmp_path, "--where", "seed=7"], "plot: --where: seed=7: no such value (values: 0, 1, 2)")
    check([folders["sweep"], "-o", tmp_path, "--where", "trace=x"], "plot: --where: 'trace' is not an axis")
    check([folders["compare"], "-o", tmp_path, "--baseline", "sia"],
          "plot: --baseline: 'sia' is not a policy of this folder (fifo, srtf, las)")
    assert os.listdir(tmp_path) == []     # nothing written


def test_where_picks_the_seed_and_point(folders):
    out = plot.load(folders["sweep"])
    opts = plot.Options(where={"seed": "2", "cluster_scale": "2"})
    f = plot.fig_utilization(out, opts)
    assert "scale = 2, seed = 2" in f.title
    plot.plt.close(f.fig)
    assert plot.fig_jct_vs_load(out, opts) is None    # the load axis is fixed: nothing to draw against


def _error_of(capsys, folder, *options):
    """plot.main's one error line on folder (asserting exit 2, no traceback)."""
    r = InProcess(capsys, [folder, "-o", folder / "figs", *options])
    return _one_line_error(r, "plot: ")


def _keep_lines(n):
    """A change for damaged_copy: the first n lines, each with its line end (a file cut between rows)."""
    return lambda text: "".join(text.splitlines(keepends=True)[:n])


def _fixture_bytes(name):
    with open(os.path.join(FIXTURE_RUN, name), "rb") as f:
        return f.read()


BIG = 10 ** 400   # a 401-digit integer: json reads it, float() cannot hold it

# (name, folder kind, changes, extra options, expected error after "plot: DIR/")
BAD_INPUTS = [
    ("inf-jct", "fixture", {"jobs.csv": replace_once("3600.000000,3600.000000,0.000000", "3600.000000,inf,0.000000")},
     (), "jobs.csv: line 2: column jct_s: not a finite number: 'inf'"),
    ("nan-total", "fixture", {"t.utilization.csv": replace_once("600.000000,4,8,", "600.000000,4,nan,")},
     (), "t.utilization.csv: line 3: column total_gpus: not a number: 'nan'"),
    ("inf-total", "fixture", {"t.utilization.csv": replace_once("0.000000,4,8,", "0.000000,4,inf,")},
     (), "t.utilization.csv: line 2: column total_gpus: not a finite number: 'inf'"),
    ("zero-total", "fixture", {"t.utilization.csv": replace_once("0.000000,4,8,", "0.000000,4,0,")},
     (), "t.utilization.csv: line 2: column total_gpus: not a positive number: 0"),
    ("by-type-list", "fixture", {"summary.json": edit_json(lambda s: s.update(utilization_by_type=[0.5]))},
     (), "summary.json: key 'utilization_by_type': not an object of GPU type -> number: [0.5]"),
    ("by-type-text", "fixture", {"summary.json": edit_json(lambda s: s["busy_gpu_s_by_type"].update(v100="many"))},
     (), "summary.json: key 'busy_gpu_s_by_type': GPU type 'v100': not a finite number: 'many'"),
    ("huge-int", "fixture", {"summary.json": edit_json(lambda s: s.update(makespan_s=BIG))},
     (), "summary.json: key 'makespan_s': not a finite number: an integer of 401 digits"),
    ("huge-count", "fixture", {"summary.json": edit_json(lambda s: s.update(jobs_read=BIG))},
     (), "summary.json: key 'jobs_read': not a count (a whole number >= 0): an integer of 401 digits"),
    ("nan-metric", "fixture", {"summary.json": replace_once('"utilization": 0.508333', '"utilization": NaN')},
     (), "summary.json: key 'utilization': not a finite number: nan"),
    ("policy-number", "fixture", {"summary.json": edit_json(lambda s: s.update(policy=5))},
     (), "summary.json: key 'policy': not a string: 5"),
    ("notes-text", "fixture", {"summary.json": edit_json(lambda s: s.update(input_notes="x"))},
     (), "summary.json: key 'input_notes': not a list of strings: 'x'"),
    ("util-header-only", "fixture", {"t.utilization.csv": _keep_lines(1)},
     (), "t.utilization.csv: no rows, only the header (hetsim writes one at the start of the run at least)"),
    ("jobs-empty", "fixture", {"jobs.csv": ""}, (), "jobs.csv: empty file (no header)"),
    ("jobs-not-utf8", "fixture", {"jobs.csv": _fixture_bytes("jobs.csv").replace(b"\nb,", b"\nb\xff,")},
     (), "jobs.csv: line 4: not UTF-8 text (byte 0xff)"),
    ("jobs-short-row", "fixture", {"jobs.csv": replace_once(",0,0,0.000000,4800.000000,completed,,1200.000000,3,0.333333,1.000000\n",
                                                             ",0,0,0.000000,4800.000000\n")},
     (), "jobs.csv: line 6: 13 fields, the header has 19 (a cut or damaged row)"),
    ("jobs-cut-mid-line", "fixture", {"jobs.csv": lambda t: t[:-20]},
     (), "jobs.csv: line 6: the last line has no line end (a cut file?)"),
    ("jobs-cut-between-rows", "fixture", {"jobs.csv": _keep_lines(5)},
     (), "jobs.csv: 4 job rows, but summary.json records jobs_read = 5 (a cut or mixed-up file?)"),
    ("alloc-cut-mid-line", "fixture", {"t.allocations.csv": lambda t: t[:-12]},
     (), "t.allocations.csv: line 6: the last line has no line end (a cut file?)"),
    ("alloc-short-row", "fixture", {"t.allocations.csv": replace_once("4,v100,false,completed\nd", "4,v100\nd")},
     (), "t.allocations.csv: line 2: 6 fields, the header has 8 (a cut or damaged row)"),
    ("compare-cut", "compare", {"compare.csv": _keep_lines(3)},
     (), "compare.csv: 2 policy rows, but compare.json lists 3 (a cut file?)"),
    ("compare-short-row", "compare", {"compare.csv": lambda t: t.replace("\nlas,ok,", "\nlas\n#", 1)},
     (), "compare.csv: line 4: 1 fields, the header has"),
    ("points-cut", "sweep", {"points.csv": _keep_lines(11)},
     (), "points.csv: 10 points, but results.csv names 2 more (first: "),
    ("points-renumbered", "sweep", {"points.csv": replace_once("\n1,", "\n7,")},
     (), "points.csv: line 3: column index: '7', expected 1 (points are numbered in order)"),
    ("two-timelines", "fixture", {"u.utilization.csv": _fixture_bytes("t.utilization.csv")},
     (), "two timelines, t.allocations.csv and u.utilization.csv: summary.json does not record which one this "
         "run wrote (an older run, or --timeline without --out); move the other one out of the folder"),
]


@pytest.mark.parametrize("name,kind,changes,options,expected", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_damaged_folders_exit_2_naming_file_line_and_field(folders, tmp_path, capsys, name, kind, changes, options,
                                                           expected):
    bad = damaged_copy(folders[kind], tmp_path / name, changes)
    line = _error_of(capsys, bad, *options)
    assert line.startswith(f"plot: {bad}{os.sep if not expected.startswith('two') else ': '}{expected}"), line
    assert not (bad / "figs").exists() or os.listdir(bad / "figs") == []


@pytest.mark.parametrize("named", ["t.json", "u.json"])
def test_the_timeline_summary_json_names_is_drawn_beside_another(folders, tmp_path, named):
    """hetsim run --out DIR --timeline DIR/t.json records "timeline": "t.json"; a second timeline in
    the folder (u.*) is then no reason to refuse, and the one named is the one read."""
    changes = {"u.utilization.csv": _fixture_bytes("t.utilization.csv"),
               "u.allocations.csv": _fixture_bytes("t.allocations.csv"),
               "summary.json": edit_json(lambda s: s.update(timeline=named))}
    run = plot.load(str(damaged_copy(folders["fixture"], tmp_path / "run", changes))).runs[0]
    stem = named[:-len(".json")]
    assert os.path.basename(run.utilization_path) == f"{stem}.utilization.csv"
    assert os.path.basename(run.allocations_path) == f"{stem}.allocations.csv"


def test_a_timeline_another_run_left_in_the_folder_is_not_drawn(folders, tmp_path):
    """hetsim run --out D --timeline D/a.json, then hetsim run --out D (no timeline): the second
    summary.json has `settings` and no `timeline`, so a.* belong to the first run."""
    changes = {"summary.json": edit_json(lambda s: s.update(settings={"policy": "srtf"}))}
    run = plot.load(str(damaged_copy(folders["fixture"], tmp_path / "run", changes))).runs[0]
    assert run.utilization_path is None and run.allocations_path is None


def test_dollar_signs_print_literally(folders, tmp_path, capsys):
    """Cluster names and policy labels are not matplotlib mathtext: "$" is a character (an unbalanced
    "$\\frac{$" used to stop the drawing with a traceback)."""
    name = "$\\frac{$ 5$"
    run = damaged_copy(folders["fixture"], tmp_path / "run", {"summary.json": edit_json(lambda s: s.update(cluster=name))})
    figs = _figures(run)
    try:
        f = figs["jct_cdf"]
        assert name in f.title
        f.fig.savefig(io.BytesIO(), format="png")       # draws every text
    finally:
        for f in figs.values():
            plot.plt.close(f.fig)
    # compare writes a policy's outputs to a safe folder name: "$srtf$" -> "_srtf_"
    cmp = damaged_copy(folders["compare"], tmp_path / "cmp", {"compare.csv": replace_once("\nsrtf,", "\n$srtf$,"),
                                                                "compare.json": replace_once('"srtf"', '"$srtf$"')})
    (cmp / "srtf").rename(cmp / "_srtf_")
    assert plot.main([str(cmp), "-o", str(tmp_path / "figs")]) == 0
    assert sorted(os.listdir(tmp_path / "figs"))[:2] == ["jct_cdf.pdf", "jct_cdf.png"]
    f = plot.fig_jct_ratio(plot.load(str(cmp)), plot.Options())
    try:
        assert [t.get_text() for t in f.fig.axes[0].get_xticklabels()] == ["$srtf$", "las"]
        f.fig.savefig(io.BytesIO(), format="png")
    finally:
        plot.plt.close(f.fig)


def test_x_on_a_text_axis_is_an_error(folders, tmp_path, capsys):
    def text_scales(text):
        lines = text.splitlines(keepends=True)
        col = lines[0].rstrip("\n").split(",").index("cluster_scale")
        out = [lines[0]]
        for line in lines[1:]:
            cells = line.rstrip("\n").split(",")
            cells[col] = "scale-" + cells[col]
            out.append(",".join(cells) + "\n")
        return "".join(out)

    bad = damaged_copy(folders["sweep"], tmp_path / "text-axis", {"points.csv": text_scales})
    line = _error_of(capsys, bad, "--x", "cluster_scale")
    assert line == "plot: --x: 'cluster_scale' has values that are not numbers (scale-1, scale-2): jct_vs_load needs a numeric axis"


def test_an_unforeseen_library_error_is_bad_input(folders, tmp_path, capsys, monkeypatch):
    def broken(out, opts):
        raise ValueError("Image size of 1x99999999 pixels is too large.\nmore detail")
    monkeypatch.setattr(plot, "FIGURES", [broken])
    r = InProcess(capsys, [folders["fixture"], "-o", tmp_path / "figs"])
    assert _one_line_error(r, "plot: ") == (f"plot: {folders['fixture']}: cannot draw this folder "
                                            "(ValueError: Image size of 1x99999999 pixels is too large.)")


MORE_BAD_INPUTS = [
    ("negative-gpus", {"jobs.csv": replace_once(",4,4,v100,0", ",-4,4,v100,0")},
     "jobs.csv: line 2: column gpus: not a count (a whole number >= 0): -4"),
    ("half-gpu", {"t.allocations.csv": replace_once("3600.000000,4,v100", "3600.000000,2.5,v100")},
     "t.allocations.csv: line 2: column gpus: not a count (a whole number >= 0): 2.5"),
    ("busy-type-negative", {"t.utilization.csv": replace_once("0.500000,0,1,4,0\n", "0.500000,0,1,4,-1\n")},
     "t.utilization.csv: line 2: column busy_t4: not a number of busy GPUs (>= 0, in thousandths): -1"),
    ("busy-finer-than-thousandths", {"t.utilization.csv": replace_once("0.500000,0,1,4,0\n", "0.500000,0,1,4,0.0005\n")},
     "t.utilization.csv: line 2: column busy_t4: not a number of busy GPUs (>= 0, in thousandths): 0.0005"),
    ("time-backwards", {"t.utilization.csv": replace_once("\n1200.000000,", "\n100.000000,")},
     "t.utilization.csv: line 4: column time_s: 100 is before the row above (hetsim writes them in time order)"),
]


@pytest.mark.parametrize("name,changes,expected", MORE_BAD_INPUTS, ids=[b[0] for b in MORE_BAD_INPUTS])
def test_counts_and_time_order_are_checked(folders, tmp_path, capsys, name, changes, expected):
    """Found beyond the issue's list: damage that drew a wrong figure with exit 0."""
    bad = damaged_copy(folders["fixture"], tmp_path / name, changes)
    assert _error_of(capsys, bad) == f"plot: {bad}{os.sep}{expected}"


def test_fractional_busy_gpus_are_drawn(tmp_path, capsys):
    """Jobs asking for a fraction of a GPU (gpu_milli): the utilisation CSV counts busy GPUs in thousandths; plot
    and report refused it as 'not a count'."""
    folder = _small_run(str(tmp_path / "shared"))
    with open(os.path.join(folder, "run.utilization.csv"), "w") as f:
        f.write("time_s,busy_gpus,total_gpus,utilization,busy_v100\n0,0.5,2,0.25,0.5\n40,0.333,2,0.1665,0.333\n"
                "90,0,2,0,0\n")
    plot.main([folder, "-o", str(tmp_path / "figs")])   # returns: no SystemExit(2)
    assert (tmp_path / "figs" / "utilization.png").is_file()
    assert capsys.readouterr().err == ""
