"""marketdata.options is framework-free: its modules import the standard library, numpy,
numba (the compiled kernels, ``_kernels.py``: numba and its llvmlite) and each other, nothing
else (no Django, no DRF, no scipy, no cross-check library)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import marketdata.options

PACKAGE = Path(marketdata.options.__file__).parent


def test_only_stdlib_numpy_and_the_package_itself():
    foreign = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("numpy", "numba", "llvmlite") or \
                        name.startswith("marketdata.options") or top == "__future__":
                    continue
                foreign.append(f"{path.name}: {name}")
    assert not foreign, foreign
