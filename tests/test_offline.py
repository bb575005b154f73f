"""Offline and private: mining and asking open no network socket."""

from __future__ import annotations

import socket

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
