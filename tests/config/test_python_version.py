"""The quick start on any Python 3.11 (Debian 12's python3 is 3.11.2): the locked packages
accept it, and `make` names the interpreter it needs before installing anything."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("lock", ["base.lock", "dev.lock"])
def test_every_locked_package_installs_on_python_3_11_2(lock, capsys):
    """Every pin's Requires-Python accepts 3.11.2 and every dependency it needs there is
    pinned: bin/check-locks, the one reader of the locks, for that one version."""
    from tests.config.test_lock_markers import check_locks

    path = ROOT / "requirements" / lock
    assert check_locks.main([str(path), "--python", "3.11.2"]) == 0, capsys.readouterr().err


def _fake_python(tmp_path: Path, version: str) -> str:
    script = tmp_path / f"python-{version}"
    script.write_text(f"#!/bin/sh\necho {version}\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.process
def test_make_checks_the_interpreter_before_installing(tmp_path):
    check = str(ROOT / "bin" / "check-python")
    for good in ("3.11.0", "3.11.2", "3.11.14"):
        assert subprocess.run([check, _fake_python(tmp_path, good)]).returncode == 0
    for bad in ("3.10.13", "3.12.1"):
        result = subprocess.run([check, _fake_python(tmp_path, bad)], capture_output=True,
                                text=True)
        assert result.returncode == 1
        assert result.stderr.count("\n") == 1 and f"is Python {bad}" in result.stderr
        assert "make PYTHON=python3.11" in result.stderr
    missing = subprocess.run([check, str(tmp_path / "no-python")], capture_output=True,
                             text=True)
    assert missing.returncode == 1 and "was not found" in missing.stderr
    assert "bin/check-python $(PYTHON)" in (ROOT / "Makefile").read_text()
