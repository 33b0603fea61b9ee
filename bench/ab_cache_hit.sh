#!/usr/bin/env bash
# A/B of the cache-hit path: bench/http_bench.py run from a checkout of an earlier commit
# and from this tree, alternated, each against its own floor in the same run.
#   bench/ab_cache_hit.sh <base-rev>      (e.g. the commit before a change)
# Loopback only; each run is bounded by --duration.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-$here/.venv/bin/python}"
base_rev="${1:?usage: bench/ab_cache_hit.sh <base-rev>}"
base_dir="$(mktemp -d -t marketdata-ab.XXXXXX)"
git -C "$here" worktree add --detach "$base_dir" "$base_rev" >/dev/null
trap 'git -C "$here" worktree remove --force "$base_dir"' EXIT
for round in 1 2; do
  for side in base main; do
    if [ $side = base ]; then dir="$base_dir"; else dir="$here"; fi
    echo "=== $side round $round"
    (cd $dir && $PY bench/http_bench.py --duration 10 --connections 50 --rounds 1 --workers 1 2>&1 | tail -8)
  done
done
