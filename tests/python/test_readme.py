"""The README's Python example runs as written, from the repository root."""
import os
import re

from conftest import SOURCE_DIR


def test_readme_python_example(capsys, monkeypatch):
    text = open(os.path.join(SOURCE_DIR, "README.md"), encoding="utf-8").read()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(SOURCE_DIR)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "SmallestFirst" in out and "srtf" in out and "jct_s" in out
