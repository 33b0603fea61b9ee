"""backtesting.py is AGPL-3.0: a test and benchmark dependency only. No module the service
loads may import it (the cross-check test and bench/backtest.py are the only users)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
IMPORT = re.compile(r"^\s*(from|import)\s+backtesting\b", re.MULTILINE)


def test_service_code_never_imports_backtesting_py():
    offenders = [str(path.relative_to(ROOT))
                 for folder in ("apps", "marketdata", "config")
                 for path in (ROOT / folder).rglob("*.py")
                 if IMPORT.search(path.read_text(encoding="utf-8"))]
    assert offenders == []
    users = sorted(str(path.relative_to(ROOT)) for folder in ("tests", "bench")
                   for path in (ROOT / folder).rglob("*.py")
                   if IMPORT.search(path.read_text(encoding="utf-8")))
    assert users == ["bench/backtest.py",
                     "tests/marketdata/backtest/test_crosscheck_backtesting_py.py"]
