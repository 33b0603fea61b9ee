"""TypeScript types generated from the served document by openapi-typescript (npm), pinned
with its lock file in tests/clients/typescript/: it generates without an error or a warning,
and the TypeScript compiler accepts the types (``tsc --noEmit --strict``). Skipped where
``node`` and ``npm`` are not installed; ``npm ci`` installs the pinned tools into that
folder's (git-ignored) node_modules once."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow("npm ci, openapi-typescript and tsc"),
    pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                       reason="node and npm are not installed"),
]

TOOLS = Path(__file__).resolve().parent / "typescript"
BIN = TOOLS / "node_modules" / ".bin"


def _run(command: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False)


@pytest.fixture(scope="module")
def tools() -> Path:
    """The pinned tools installed from the lock file (again only when it changed)."""
    installed = TOOLS / "node_modules" / ".package-lock.json"
    lock = TOOLS / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        run = _run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], TOOLS, 300)
        assert run.returncode == 0, run.stdout + run.stderr
    return BIN


@pytest.fixture(scope="module")
def types_file(tools, tmp_path_factory, django_db_blocker) -> tuple[Path, str]:
    """(the generated .ts file, openapi-typescript's output) for /openapi.json as served."""
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/openapi.json")
    assert response.status_code == 200
    tmp = tmp_path_factory.mktemp("typescript")
    (tmp / "openapi.json").write_bytes(response.content)
    run = _run([str(tools / "openapi-typescript"), "openapi.json", "-o", "schema.ts"], tmp, 300)
    assert run.returncode == 0, run.stdout + run.stderr
    return tmp / "schema.ts", run.stdout + run.stderr


def test_openapi_typescript_generates_without_a_warning(types_file):
    path, output = types_file
    lines = [line for line in output.splitlines() if line.strip()]
    # Its banner and the one line naming the file; a warning or an error is any other line.
    assert [line for line in lines if "openapi-typescript" not in line
            and "schema.ts" not in line] == []
    text = path.read_text()
    for operation in ("get_quote_v2", "get_quotes_v2", "index", "run_backtest"):
        assert f"    {operation}: {{" in text, operation


def test_the_types_compile(types_file, tools):
    path, _ = types_file
    run = _run([str(tools / "tsc"), "--noEmit", "--strict", path.name], path.parent, 300)
    assert run.returncode == 0, run.stdout + run.stderr
