"""bin/check-locks (in ``make lint``): a lock that leaves out a dependency some Python 3.11.x
needs behind a marker is refused before anyone installs it (issue 39: redis needs
async-timeout below 3.11.3, and a lock compiled on 3.11.7 did not install on Debian 12's
3.11.2)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
HASH = " \\\n    --hash=sha256:" + "0" * 64


def _load():
    loader = importlib.machinery.SourceFileLoader("check_locks", str(ROOT / "bin" / "check-locks"))
    spec = importlib.util.spec_from_loader("check_locks", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_locks"] = module  # dataclasses look their module up
    loader.exec_module(module)
    return module


check_locks = _load()
Metadata = check_locks.Metadata

# A tiny world: what each synthetic package's metadata says.
WORLD = {
    "redis": Metadata("8.1.0", ">=3.10",
                      ['async-timeout>=4.0.3; python_full_version < "3.11.3"']),
    "async-timeout": Metadata("5.0.1", ">=3.8", []),
    "psycopg": Metadata("3.3.9", ">=3.10", [
        'typing-extensions>=4.6; python_version < "3.13"',
        'psycopg-binary==3.3.9; implementation_name != "pypy" and extra == "binary"']),
    "psycopg-binary": Metadata("3.3.9", ">=3.10", []),
    "typing-extensions": Metadata("4.16.0", ">=3.9", []),
    "soupsieve": Metadata("3.1.0", ">=3.11.5", []),
}


def _lock(*lines: str) -> dict:
    return check_locks.parse_lock("# a lock\n" + "\n".join(line + HASH for line in lines) + "\n")


def _problems(lock: dict, roots: list[str], python: str) -> list[str]:
    return check_locks.check_lock(lock, [Requirement(r) for r in roots], python, WORLD.get)


def test_a_dependency_behind_a_full_version_marker_must_be_pinned():
    lock = _lock("redis==8.1.0")
    problems = _problems(lock, ["redis==8.1.0"], "3.11.2")
    assert len(problems) == 1
    assert "async-timeout is not pinned" in problems[0] and "redis==8.1.0" in problems[0]
    assert _problems(lock, ["redis==8.1.0"], "3.11.7") == []  # where the lock was compiled
    fixed = _lock("async-timeout==5.0.1", "redis==8.1.0")
    assert _problems(fixed, ["redis==8.1.0"], "3.11.2") == []


def test_a_pin_that_is_too_old_for_the_dependency_is_refused():
    lock = _lock("async-timeout==4.0.2", "redis==8.1.0")
    world_version = {**WORLD, "async-timeout": Metadata("4.0.2", ">=3.7", [])}
    problems = check_locks.check_lock(lock, [], "3.11.2", world_version.get)
    assert problems == ["async-timeout==4.0.2 does not satisfy async-timeout>=4.0.3; "
                        'python_full_version < "3.11.3" (redis==8.1.0) on Python 3.11.2']


def test_extras_asked_for_by_the_requirement_file_count():
    lock = _lock("psycopg==3.3.9", "typing-extensions==4.16.0")
    assert _problems(lock, ["psycopg==3.3.9"], "3.11.2") == []
    problems = _problems(lock, ["psycopg[binary]==3.3.9"], "3.11.2")
    assert len(problems) == 1 and "psycopg-binary is not pinned" in problems[0]
    assert _problems(_lock("psycopg==3.3.9", "psycopg-binary==3.3.9",
                           "typing-extensions==4.16.0"),
                     ["psycopg[binary]==3.3.9"], "3.11.2") == []


def test_a_package_that_needs_a_later_patch_release_is_refused():
    problems = _problems(_lock("soupsieve==3.1.0"), [], "3.11.2")
    assert problems == ["soupsieve==3.1.0 requires Python >=3.11.5, so it does not install "
                        "on 3.11.2"]
    assert _problems(_lock("soupsieve==3.1.0"), [], "3.11.5") == []


def test_a_locked_package_the_environment_lacks_is_reported_not_skipped():
    problems = _problems(_lock("nowhere==1.0"), [], "3.11.2")
    assert problems == ["nowhere==1.0 is not installed here, so its dependencies cannot be "
                        "checked (install the lock: make)"]


def test_the_command_fails_on_the_lock_before_the_fix_and_passes_after(tmp_path, capsys):
    """Against this venv's real metadata (redis 8.1.0 is installed from the locks)."""
    (tmp_path / "base.txt").write_text("redis==8.1.0\n")
    lock = tmp_path / "base.lock"
    lock.write_text("redis==8.1.0" + HASH + "\n")
    assert check_locks.main([str(lock), "--python", "3.11.2", "--python", "3.11.7"]) == 1
    err = capsys.readouterr().err
    assert "async-timeout is not pinned, and redis==8.1.0 needs it" in err
    assert "(Python 3.11.2)" in err  # and only there: 3.11.7 does not need it
    lock.write_text("async-timeout==5.0.1" + HASH + "\nredis==8.1.0" + HASH + "\n")
    assert check_locks.main([str(lock), "--python", "3.11.2", "--python", "3.11.7"]) == 0


def test_a_pin_without_a_hash_is_refused(tmp_path, capsys):
    lock = tmp_path / "base.lock"
    lock.write_text("async-timeout==5.0.1\n")
    assert check_locks.main([str(lock), "--python", "3.11.2"]) == 1
    assert "async-timeout (line 1) has no --hash" in capsys.readouterr().err


@pytest.mark.parametrize("lock", ["base.lock", "dev.lock"])
def test_the_project_locks_install_on_every_python_3_11(lock, capsys):
    """What `make lint` runs: Debian 12's 3.11.2 up to later patch releases."""
    assert check_locks.main([str(ROOT / "requirements" / lock)]) == 0, capsys.readouterr().err


def test_make_lint_and_make_lock_run_the_check():
    makefile = (ROOT / "Makefile").read_text()
    lint = makefile.split("\nlint:")[1].split("\n\n")[0]
    lock = makefile.split("\nlock:")[1].split("\n\n")[0]
    for recipe in (lint, lock):
        assert "bin/check-locks requirements/base.lock requirements/dev.lock" in recipe
