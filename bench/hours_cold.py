"""The first ``/v2/hours?region=XX`` on a fresh worker, for every region: before (calendars
built by ``exchange_calendars.get_calendar``, ``HOURS_FULL_CALENDARS=1``) and after (the
windowed build of marketdata.calendar_window, the default), side by side (issue 23).

It starts the service twice with its production command in sandbox mode, the way the
integration tests do (``tests.integration.servers.start_service``: bin/serve, a fresh
``MARKETDATA_VAR_DIR``, a free port, one worker), one per mode, both kept running. For
each region, alternating the two modes, it stops the worker (SIGTERM); gunicorn starts a
fresh one (``post_worker_init`` included), and the script measures how long that worker
takes to answer ``/v1/ping`` (ready), then the wall time of the first
``/v2/hours?region=XX`` and the worker's CPU time (utime + stime from /proc) spent on it,
then a second request (warm) for reference; ``--rounds N`` repeats that (medians are
printed). ``--starts N`` also times N whole service starts per mode (bin/serve to the
first ping, fresh var directory each time, alternating), the start-up cost the integration
tests pay. Prints markdown tables. The worker's CPU time counts in clock ticks (10 ms).

``--verify`` instead compares the two builds themselves: every calendar /v2/hours uses,
over the window it builds at ``--verify-days`` moments 61 days apart from 2024-01-15 (and
the package's default window), each mode in its own fresh process; it prints how many
builds differ (sessions, times, early closes, late opens, or the error raised).

    .venv/bin/python bench/hours_cold.py [--regions KR,RU,US] [--rounds 3] [--starts 3]
    .venv/bin/python bench/hours_cold.py --verify [--verify-days 40]
"""

from __future__ import annotations

import argparse
import os
import pickle
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration.servers import Process, start_service  # noqa: E402

MODES = {"before": "1", "after": "0"}  # HOURS_FULL_CALENDARS
TICKS = os.sysconf("SC_CLK_TCK")


def regions() -> list[str]:
    from marketdata.exchange_hours import EXCHANGES  # the spec's Region enum, in its order

    return list(EXCHANGES)


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                         text=True).stdout
    return [int(p) for p in out.split()]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def get(url: str, timeout: float = 60.0) -> tuple[int, float]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=timeout) as response:
        response.read()
        return response.status, time.perf_counter() - started


def ping_ok(url: str) -> bool:
    try:
        return get(url, timeout=2)[0] == 200
    except OSError:
        return False


def fresh_worker(service: Process, timeout: float = 90.0) -> tuple[int, float]:
    """Stop the worker; the new one's pid and its time from the stop to its first ping."""
    master = service.proc.pid
    (old,) = children(master)
    started = time.perf_counter()
    os.kill(old, signal.SIGTERM)
    deadline = started + timeout
    while time.perf_counter() < deadline:
        new = [pid for pid in children(master) if pid != old]
        if new and old not in children(master) and ping_ok(f"{service.base_url}/v1/ping"):
            return new[0], time.perf_counter() - started
        time.sleep(0.02)
    raise TimeoutError(f"no fresh worker in {timeout} s:\n{service.log()[-3000:]}")


def first_hours(service: Process, region: str) -> dict[str, float]:
    worker, ready = fresh_worker(service)
    url = f"{service.base_url}/v2/hours?region={region}"
    cpu = cpu_seconds(worker)
    status, first = get(url)
    cpu = cpu_seconds(worker) - cpu
    assert status == 200, status
    _, warm = get(url)
    return {"ready": ready, "first": first, "cpu": cpu, "warm": warm}


def start(tmp: Path, mode: str) -> tuple[Process, float]:
    started = time.perf_counter()
    service = start_service(tmp, {"MARKETDATA_UPSTREAM": "sandbox", "WEB_CONCURRENCY": "1",
                                  "HOURS_FULL_CALENDARS": MODES[mode]})
    return service, time.perf_counter() - started


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def bench(names: list[str], starts: int, rounds: int) -> None:
    print(f"load average before: {load()}\n")
    with tempfile.TemporaryDirectory(prefix="hours-cold-") as tmp_name:
        tmp = Path(tmp_name)
        if starts:
            times: dict[str, list[float]] = {mode: [] for mode in MODES}
            for _ in range(starts):
                for mode in MODES:
                    service, took = start(tmp, mode)
                    service.stop()
                    times[mode].append(took)
            print("| service start (bin/serve to first ping) | runs | median s | min s |"
                  " max s |\n|---|---|---|---|---|")
            for mode, values in times.items():
                print(f"| {mode} | {len(values)} | {statistics.median(values):.2f} |"
                      f" {min(values):.2f} | {max(values):.2f} |")
            print()
        services = {mode: start(tmp, mode)[0] for mode in MODES}
        runs: dict[str, dict[str, list[dict[str, float]]]] = {
            region: {mode: [] for mode in MODES} for region in names}
        try:
            for _ in range(rounds):
                for region in names:
                    for mode in MODES:
                        runs[region][mode].append(first_hours(services[mode], region))
        finally:
            for service in services.values():
                service.stop()

    def median(region: str, mode: str, key: str) -> float:
        return statistics.median(run[key] for run in runs[region][mode])

    print(f"Medians of {rounds} fresh worker(s) per region and mode.\n")
    print("| region | before: first ms | before: worker CPU ms | after: first ms |"
          " after: worker CPU ms | after: warm ms |\n|---|---|---|---|---|---|")
    for region in names:
        print(f"| {region} | {ms(median(region, 'before', 'first'))} |"
              f" {ms(median(region, 'before', 'cpu'))} | {ms(median(region, 'after', 'first'))} |"
              f" {ms(median(region, 'after', 'cpu'))} | {ms(median(region, 'after', 'warm'))} |")
    print("\n| mode | first /v2/hours: median ms | max ms | worker CPU: max ms |"
          " sum of first requests s | worker ready: median s |\n|---|---|---|---|---|---|")
    for mode in MODES:
        every = [run for region in names for run in runs[region][mode]]
        firsts = [median(region, mode, "first") for region in names]
        print(f"| {mode} | {ms(statistics.median(r['first'] for r in every))} |"
              f" {ms(max(r['first'] for r in every))} | {ms(max(r['cpu'] for r in every))} |"
              f" {sum(firsts):.2f} | {statistics.median(r['ready'] for r in every):.2f} |")
    print(f"\nload average after: {load()}")


# -- --verify -------------------------------------------------------------------------------
def verify_child(mode: str, days: int, out: Path) -> None:
    """In a fresh process: every calendar's build outcome, windowed or package."""
    import hashlib
    import warnings
    from datetime import date, timedelta

    warnings.simplefilter("ignore")
    import exchange_calendars
    import pandas as pd

    from marketdata.calendar_window import windowed_calendar
    from marketdata.exchange_hours import EXCHANGES

    def build(mic: str, **kwargs: str):
        if mode == "package":
            return exchange_calendars.get_calendar(mic, **kwargs)
        return windowed_calendar(mic, **kwargs)

    def outcome(mic: str, **kwargs: str) -> tuple:
        try:
            cal = build(mic, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the package's errors vary by calendar
            return ("error", type(exc).__name__, str(exc))
        frame = cal.schedule
        table = (frame.index.asi8.tolist(),
                 [pd.DatetimeIndex(frame[column]).asi8.tolist() for column in frame])
        return ("ok", hashlib.sha256(pickle.dumps(table)).hexdigest(),
                [str(x) for x in cal.early_closes], [str(x) for x in cal.late_opens],
                str(cal.tz), cal.weekmask, str(cal.open_times), str(cal.close_times),
                str(cal.break_start_times), str(cal.break_end_times))

    mics = [e.mic for e in EXCHANGES.values() if e.mic is not None]
    results: dict[tuple, tuple] = {}
    started = time.perf_counter()
    for i in range(days):
        day = date(2024, 1, 15) + timedelta(days=61 * i)
        begin = (day - timedelta(days=7)).isoformat()
        for mic in mics:
            results[(mic, day, "window")] = outcome(
                mic, start=begin, end=(day + timedelta(days=400)).isoformat())
            results[(mic, day, "start only")] = outcome(mic, start=begin)
    for mic in mics:
        results[(mic, None, "default")] = outcome(mic)
    out.write_bytes(pickle.dumps((results, time.perf_counter() - started)))


def verify(days: int) -> None:
    with tempfile.TemporaryDirectory(prefix="hours-verify-") as tmp_name:
        outcomes = {}
        for mode in ("windowed", "package"):
            out = Path(tmp_name) / f"{mode}.pickle"
            subprocess.run([sys.executable, __file__, "--verify-child", mode,
                            "--verify-days", str(days), "--verify-out", str(out)],
                           cwd=ROOT, check=True)
            outcomes[mode] = pickle.loads(out.read_bytes())
    (windowed, w_time), (package, p_time) = outcomes["windowed"], outcomes["package"]
    differ = [key for key in package if windowed.get(key) != package[key]]
    built = sum(1 for value in package.values() if value[0] == "ok")
    print(f"{len(package)} builds compared ({built} built, {len(package) - built} raised: "
          f"ASEX, XTAE before 2026, XSHG/XBOM/XSES past 2026, starts past the default end), "
          f"{len(differ)} differ; windowed {w_time:.1f} s, package {p_time:.1f} s")
    for key in differ[:20]:
        print("DIFFERS:", key, windowed.get(key, ("missing",))[:3], package[key][:3])
    if differ:
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regions", default="", help="comma list (default: all 32)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="fresh workers per region and mode (the table shows medians)")
    parser.add_argument("--starts", type=int, default=0,
                        help="also time this many whole service starts per mode")
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--verify-days", type=int, default=40)
    parser.add_argument("--verify-child", choices=("windowed", "package"))
    parser.add_argument("--verify-out", type=Path)
    args = parser.parse_args()
    if args.verify_child:
        verify_child(args.verify_child, args.verify_days, args.verify_out)
    elif args.verify:
        verify(args.verify_days)
    else:
        names = [r.strip().upper() for r in args.regions.split(",") if r.strip()] or regions()
        bench(names, args.starts, args.rounds)


if __name__ == "__main__":
    main()
