"""LOG_LEVEL=DEBUG is the service's debug output, not the indicator compiler's: numba logs
every bytecode and SSA step of each kernel it compiles at DEBUG (~89,000 lines in the first
minute on a fresh var/ directory, issue 39), so its loggers stay at WARNING.

The settings are imported in a fresh interpreter (they read LOG_LEVEL once, at import)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process,  # the settings in a fresh interpreter
              pytest.mark.slow("the settings loaded in a fresh interpreter")]

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import json, logging
import django
django.setup()
import numba

@numba.njit  # compiled now, without the cache: the compiler's logging runs
def add(a, b):
    return a + b

add(1, 2)
logging.getLogger("marketdata.example").debug("ours")
names = ["root", "numba", "numba.core.ssa", "numba.core.byteflow", "llvmlite", "marketdata"]
print("LEVELS " + json.dumps({name: logging.getLevelName(
    (logging.getLogger() if name == "root" else logging.getLogger(name)).getEffectiveLevel())
    for name in names}))
"""


def test_debug_leaves_the_compiler_loggers_at_warning(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "DEBUG",
           "LOG_FORMAT": "json", "MARKETDATA_VAR_DIR": str(tmp_path),
           "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", CODE], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    levels = json.loads(next(line for line in lines if line.startswith("LEVELS "))[7:])
    assert levels == {"root": "DEBUG", "marketdata": "DEBUG", "numba": "WARNING",
                      "numba.core.ssa": "WARNING", "numba.core.byteflow": "WARNING",
                      "llvmlite": "WARNING"}
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert any(r["logger"] == "marketdata.example" and r["message"] == "ours" for r in records)
    assert not [r for r in records if r["logger"].startswith(("numba", "llvmlite"))]
