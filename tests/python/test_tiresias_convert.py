"""experiments/tiresias/convert_philly.py: the selection, both output formats, bad input."""
import csv
import os
import subprocess
import sys

from conftest import SOURCE_DIR

SCRIPT = os.path.join(SOURCE_DIR, "experiments", "tiresias", "convert_philly.py")
HEADER = "timestamp,duration,num_gpus,gpu_time,cluster\n"


def run(tmp_path, text, *args):
    src = tmp_path / "philly.csv"
    src.write_text(text)
    return subprocess.run([sys.executable, SCRIPT, "--philly", str(src), "--out", str(tmp_path / "out"), *args],
                          capture_output=True, text=True)


def test_earliest_jobs_in_both_formats(tmp_path):
    # Rows out of time order; the two at 10:00:05 keep file order; the 0-s and 300-GPU rows are left out.
    text = HEADER + ("2017-10-01 10:00:05,50.0,2,100.0,c\n"
                     "2017-10-01 10:00:00,30.0,1,30.0,c\n"
                     "2017-10-01 10:00:01,0.0,1,0.0,c\n"
                     "2017-10-01 10:00:02,40.0,300,12000.0,c\n"
                     "2017-10-01 10:00:05,60.0,8,480.0,c\n"
                     "2017-10-01 11:00:00,70.0,1,70.0,c\n")
    r = run(tmp_path, text, "--jobs", "3")
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(open(tmp_path / "out" / "tiresias-3.csv")))
    assert rows == [["job_id", "num_gpu", "submit_time", "iterations", "model_name", "duration", "interval"],
                    ["0", "1", "0", "1", "resnet50", "30", "0"],
                    ["1", "2", "5", "1", "resnet50", "50", "0"],
                    ["2", "8", "5", "1", "resnet50", "60", "0"]]
    philly = open(tmp_path / "out" / "philly-3.csv").read().splitlines()
    assert philly == [HEADER.strip(), "2017-10-01 10:00:00,30.0,1,30.0,c", "2017-10-01 10:00:05,50.0,2,100.0,c",
                      "2017-10-01 10:00:05,60.0,8,480.0,c"]
    # GPU-service (duration x GPUs) for the simulator's gittins (its yarn-gput1000.csv)
    assert open(tmp_path / "out" / "gput-3.csv").read().splitlines() == ["duration", "30", "100", "480"]


def test_bad_input_names_file_and_line(tmp_path):
    r = run(tmp_path, HEADER + "2017-10-01 10:00:00,30.0,1,30.0,c\n2017-13-01 10:00:00,30.0,1,30.0,c\n", "--jobs", "1")
    assert r.returncode == 2 and "philly.csv:3" in r.stderr
    r = run(tmp_path, HEADER + "2017-10-01 10:00:00,30.5,1,30.5,c\n", "--jobs", "1")
    assert r.returncode == 2 and "philly.csv:2" in r.stderr and "whole seconds" in r.stderr
    r = run(tmp_path, HEADER + "2017-10-01 10:00:00,30.0,1,30.0,c\n", "--jobs", "2")
    assert r.returncode == 2 and "only 1 jobs" in r.stderr
    r = run(tmp_path, "time,duration\n", "--jobs", "1")
    assert r.returncode == 2 and "no column 'timestamp'" in r.stderr
