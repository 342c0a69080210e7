"""Shared fixtures of the Python tests (run by ctest: tests/CMakeLists.txt sets the environment)."""
import os
import subprocess
import sys

import pytest

SOURCE_DIR = os.environ.get("HETSIM_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
DATA_DIR = os.environ.get("HETSIM_SHARED_DATA", os.path.join(SOURCE_DIR, "..", "shared", "data"))
EXAMPLES = os.path.join(SOURCE_DIR, "examples", "python")
sys.path.insert(0, EXAMPLES)
sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture
def data():
    """Path of a file under the shared data folder; skips the test when it is absent."""
    def path(*parts):
        p = os.path.join(DATA_DIR, *parts)
        if not os.path.exists(p):
            pytest.skip(f"shared data not found: {p} (set HETSIM_SHARED_DATA)")
        return p
    return path


@pytest.fixture
def cli():
    """Runs the hetsim CLI; returns the CompletedProcess (text)."""
    exe = os.environ.get("HETSIM_CLI", os.path.join(SOURCE_DIR, "build", "release", "hetsim"))
    if not os.path.exists(exe):
        pytest.skip(f"hetsim CLI not built: {exe}")
    def run(*args, cwd=None):
        return subprocess.run([exe, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)
    return run


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return str(path)
