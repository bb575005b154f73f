"""Offline and private: mining and asking open no network socket."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from palace.core import Palace

pytestmark = pytest.mark.slow  # processes, kills and watchers: the full suite, not the fast tier


@pytest.fixture()
def no_network(monkeypatch):
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network disabled by test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def test_mine_and_ask_open_no_socket(tmp_path, no_network):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text("# Sync\n\nAlice Chen joined Acme Robotics in Berlin last Tuesday.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        result = palace.ask("where did Alice Chen go")
    assert result.results[0].path == "2024-04-12.md"
    assert no_network == []


def test_no_process_of_mine_or_ask_touches_the_network(tmp_path):
    """The socket guard above sees only Python; native code (onnxruntime, Chroma's
    Rust core) could resolve names on its own. strace sees every system call of a mine
    and an ask in child processes: no connect to an internet address, no DNS packet."""
    import re
    import shutil
    import subprocess
    import sys

    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text("# Sync\n\nAlice Chen joined Acme Robotics in Berlin last Tuesday.\n")
    code = ("import sys; from palace.core import Palace; p = Palace.open(sys.argv[2]); p.mine(sys.argv[1]); "
            "print(p.ask('where did Alice Chen go').results[0].path); p.close()")
    trace = tmp_path / "trace.txt"
    done = subprocess.run(["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o", str(trace),
                           sys.executable, "-c", code, str(notes), str(tmp_path / "palace")],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and "ptrace" in done.stderr:
        pytest.skip("strace cannot trace here: " + done.stderr.strip()[:200])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "2024-04-12.md"
    calls = trace.read_text()
    outward = [line for line in calls.splitlines()
               if re.search(r"sa_family=AF_INET6?\b", line) or re.search(r"htons\(53\)", line)]
    assert outward == [], outward[:5]


#: How long a traced long-lived process keeps running once it is ready, in seconds.
#: onnxruntime 1.32 looks up ``mobile.events.data.microsoft.com`` (its 1DS telemetry
#: upload, from a thread of its own) about 10 s after it is imported, then again after
#: 5, 8 and 21 s: a command that exits sooner never shows it, a server or a watcher
#: always does. 20 s catches the first lookup with room for a loaded machine.
LONG_LIVED_S = 20.0


def _outward(trace_text: str, palace_dirs: list) -> list[str]:
    """The calls of an strace log that reach past the palace: a connect or send to an
    internet address other than loopback, a DNS packet (port 53), or a Unix socket outside
    the palaces' folders (the name service cache daemon is a lookup too)."""
    import re

    own = [str(p) for p in palace_dirs]
    found = []
    for line in trace_text.splitlines():
        if "htons(53)" in line:
            found.append(line)
        elif re.search(r"sa_family=AF_INET6?\b", line) and not re.search(
                r'inet_addr\("127\.|inet_pton\(AF_INET6, "::1"', line):
            found.append(line)
        else:
            unix = re.search(r'sa_family=AF_UNIX, sun_path="([^"]*)"', line)
            if unix and not any(unix.group(1).startswith(p) for p in own):
                found.append(line)
    return found


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def test_long_lived_processes_never_touch_the_network(tmp_path):
    """A watcher (it mines, embeds and serves) and a warm server, each traced by strace
    for :data:`LONG_LIVED_S` seconds after it is ready, and a cold command answered by
    the watcher's server: no connect or send outside the palace's own files and socket,
    for their whole life (onnxruntime's telemetry fires only after ~10 s)."""
    import shutil
    import signal
    import subprocess
    import sys
    import time

    from palace.cli.client import server_info
    from palace.ops.daemon import read_state

    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    palace_cli = str(Path(sys.executable).parent / "palace")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text("# Sync\n\nAlice Chen joined Acme Robotics in Berlin last Tuesday.\n")
    watched, served = tmp_path / "watched", tmp_path / "served"
    with Palace.open(served) as palace:
        palace.mine(notes)

    def traced(name: str, *args: str) -> tuple[subprocess.Popen, Path]:
        log = tmp_path / f"{name}.trace"
        process = subprocess.Popen(["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o", str(log),
                                    palace_cli, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        return process, log

    t0 = time.monotonic()
    watcher, watch_log = traced("watch", "watch", str(notes), "--palace", str(watched), "--debounce", "0.2")
    server, serve_log = traced("serve", "serve", "--palace", str(served))
    try:
        deadline = time.monotonic() + 300
        ready: dict[str, float] = {}
        while len(ready) < 2:
            for name, process, folder in (("watch", watcher, watched), ("serve", server, served)):
                if name not in ready and server_info(folder) is not None and (
                        name == "serve" or (read_state(folder) or {}).get("ready")):
                    ready[name] = time.monotonic()
                if process.poll() is not None:
                    stderr = process.stderr.read()
                    if "ptrace" in stderr:
                        pytest.skip("strace cannot trace here: " + stderr.strip()[:200])
                    pytest.fail(f"{name} exited early: {stderr[-2000:]}")
            assert time.monotonic() < deadline, "the watcher or the server did not start"
            time.sleep(0.2)
        (notes / "2024-04-13.md").write_text("# Later\n\nDana Lee leads the Harbor project.\n")
        asked = subprocess.run(["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o",
                                str(tmp_path / "ask.trace"), palace_cli, "ask", "where did Alice Chen go", "--json",
                                "--palace", str(watched)], capture_output=True, text=True, timeout=120)
        assert asked.returncode == 0, asked.stderr[-2000:]
        time.sleep(max(0.0, max(ready.values()) + LONG_LIVED_S - time.monotonic()))
    finally:
        traced_commands = [child for process in (watcher, server) for child in _children(process.pid)]
        for child in traced_commands:  # stop the traced command itself: strace follows it out
            os.kill(child, signal.SIGTERM)
        for process in (watcher, server):
            try:
                process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for child in traced_commands:  # never leave one behind
            try:
                os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for log in (watch_log, serve_log, tmp_path / "ask.trace"):
        calls = log.read_text()
        assert "sendto(" in calls  # the trace saw the process's own calls (a request, a reply on its socket)
        outward = _outward(calls, [watched.resolve(), served.resolve()])
        assert outward == [], (log.name, outward[:5])
