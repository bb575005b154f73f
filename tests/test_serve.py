"""The warm server (`palace serve`, and a watcher's server): cold read commands are
answered by the process that has everything loaded, with exactly the output they would
print themselves, and never from the wrong palace, install or a dead server."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from palace.cli.client import SOCKET_FILE, served_request, server_info
from palace.cli.serve import RoutedStream

CLI = [str(Path(sys.executable).parent / "palace")]  # the installed command, named as users see it


@pytest.mark.unit
def test_each_thread_writes_into_its_own_buffer():
    real = io.StringIO()
    routed = RoutedStream(real)
    buffers = [io.StringIO() for _ in range(4)]

    def served(i):
        routed.capture(buffers[i], tty=i % 2 == 0)
        for _ in range(200):
            routed.write(f"{i}")
        assert routed.isatty() == (i % 2 == 0)
        routed.capture(None)

    threads = [threading.Thread(target=served, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    routed.write("watcher line\n")  # a thread that serves no request: the real stream
    for t in threads:
        t.join()
    assert [b.getvalue() for b in buffers] == [str(i) * 200 for i in range(4)]
    assert real.getvalue() == "watcher line\n"


@pytest.mark.unit
def test_only_read_commands_are_sent_and_the_palace_is_resolved_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    request = served_request(["ask", "what changed", "--palace", "p", "--json"])
    assert request["argv"] == ["ask", "what changed", "--json"]
    assert request["palace"] == str(tmp_path / "p")  # relative to the caller's folder
    for argv in (["mine", "notes"], ["entity", "merge", "A", "B"], ["entity", "split", "A"], ["ask", "--batch", "-"],
                 ["ask", "--help"], ["watch", "notes"], ["doctor", "--repair"], ["--chroma-url", "x", "ask", "q"], []):
        assert served_request(argv) is None, argv


@pytest.fixture()
def served_palace(mined_sample, tmp_path):
    """A copy of the mined sample palace served by `palace serve`: ``(palace_dir, process)``."""
    palace_dir = tmp_path / "p"
    shutil.copytree(mined_sample[0], palace_dir)
    process = subprocess.Popen([*CLI, "serve", "--palace", str(palace_dir)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while server_info(palace_dir) is None:
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)
    yield palace_dir, process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


def run(*args, env=None):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def without_timing(text: str) -> str:
    import re

    text = re.sub(r'"elapsed_ms": [0-9.]+', '"elapsed_ms": 0', text)
    return re.sub(r"\d+ results in \d+ ms", "N results in T ms", text)


@pytest.mark.slow
def test_served_commands_print_what_they_print_here(served_palace):
    palace_dir, process = served_palace
    sock = palace_dir / SOCKET_FILE
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    commands = [
        ["ask", "who does Bob report to", "--now", "2025-01-15", "--json"],
        ["ask", "what changed in Q3 2024", "--explain"],
        ["status", "--json"],
        ["facts", "--about", "Bob Okafor"],
        ["history", "Bob Okafor", "--json"],
        ["entity", "Alice Chen"],
        ["entity", "Alice"],  # ambiguous: an error, exit 1, on stderr
        ["changes", "--since", "2024-07-01", "--until", "2024-09-30", "--json"],
        ["facts", "--no-such-option"],  # a usage error: exit 2
    ]
    for argv in commands:
        served = run(*argv, "--palace", str(palace_dir))
        local = run(*argv, "--palace", str(palace_dir), env={"PALACE_SERVER": "off"})
        assert (served.returncode, without_timing(served.stdout), served.stderr) == (
            local.returncode, without_timing(local.stdout), local.stderr), argv
    answered = server_info(palace_dir)["requests"]
    assert answered == len(commands)
    bob = json.loads(run("ask", "who does Bob report to", "--now", "2025-01-15", "--json", "--palace",
                         str(palace_dir)).stdout)
    assert bob["answer"]["values"][0]["value"] == "Helen Marsh"
    assert server_info(palace_dir)["requests"] == answered + 1
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 0 and f"stopped after {answered + 1} requests" in out
    assert not sock.exists()


@pytest.mark.slow
def test_a_dead_server_or_another_palace_is_never_asked(served_palace, mined_sample, tmp_path):
    palace_dir, process = served_palace
    other = tmp_path / "other"
    shutil.copytree(mined_sample[0], other)
    os.symlink(palace_dir / SOCKET_FILE, other / SOCKET_FILE)  # a socket that serves another palace
    result = run("status", "--json", "--palace", str(other))
    assert result.returncode == 0 and json.loads(result.stdout)["palace"] == str(other)
    assert server_info(palace_dir)["requests"] == 0  # it refused; the command ran here
    again = subprocess.run([*CLI, "serve", "--palace", str(palace_dir)], capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 1 and "another process serves" in again.stderr
    process.kill()  # no clean stop: the socket stays behind
    process.wait(timeout=30)
    assert (palace_dir / SOCKET_FILE).exists()
    started = time.monotonic()
    result = run("ask", "who does Bob report to", "--now", "2025-01-15", "--json", "--palace", str(palace_dir))
    assert result.returncode == 0 and json.loads(result.stdout)["answer"]["values"][0]["value"] == "Helen Marsh"
    assert time.monotonic() - started < 60  # no wait on the dead socket beyond the connect timeout


@pytest.mark.slow
def test_a_stopped_server_is_given_up_on_and_the_command_answers_here(served_palace):
    """A server that takes the request and never answers (stopped with SIGSTOP): the
    client gives up after its timeout (here 0.5 s), answers by itself and says why."""
    palace_dir, process = served_palace
    process.send_signal(signal.SIGSTOP)
    try:
        result = subprocess.run([*CLI, "status", "--json", "--palace", str(palace_dir)], capture_output=True,
                                text=True, timeout=60, env={**os.environ, "PALACE_SERVER_TIMEOUT": "0.5"})
    finally:
        process.send_signal(signal.SIGCONT)
    assert result.returncode == 0 and json.loads(result.stdout)["palace"] == str(palace_dir)
    assert result.stderr == (f"palace: the server at {palace_dir / SOCKET_FILE} did not answer within 0.5 s;"
                             ' answering here (set $PALACE_SERVER_TIMEOUT or "server": {"timeout_s": …}'
                             " in config.json to wait longer)\n")
    (palace_dir / "config.json").write_text(json.dumps({"server": {"timeout_s": 0.25}}))
    process.send_signal(signal.SIGSTOP)
    try:
        result = subprocess.run([*CLI, "facts", "--about", "Bob Okafor", "--json", "--palace", str(palace_dir)],
                                capture_output=True, text=True, timeout=60)
    finally:
        process.send_signal(signal.SIGCONT)
    assert result.returncode == 0 and "did not answer within 0.25 s; answering here" in result.stderr
    assert "Helen Marsh" in result.stdout


def _raw(palace_dir, argv, **changes) -> dict:
    """Send one request for ``argv`` straight to the server's socket, as any local process
    could (not through the client's checks); its reply."""
    from palace.cli.client import PROTOCOL, _exchange, code_id

    request = {"protocol": PROTOCOL, "code": code_id(), "palace": str(palace_dir), "argv": argv, "chroma_url": None,
               "tty": {}, "env": {}, "columns": 80, **changes}
    return _exchange(str(palace_dir / SOCKET_FILE), request, 60.0)


@pytest.mark.slow
def test_the_server_runs_only_the_reads_it_documents_for_its_own_palace(served_palace, mined_sample, tmp_path):
    palace_dir, process = served_palace
    other = tmp_path / "other"
    shutil.copytree(mined_sample[0], other)
    secret = tmp_path / "secret.txt"
    secret.write_text("who holds the launch codes\n")
    refused = {
        ("entity", "merge", "Bob Okafor", "Helen Marsh"): "writes: never served",
        ("entity", "split", "Bob Okafor"): "writes: never served",
        ("status", "--json", "--palace", str(other)): "--palace is not served",
        ("status", f"--palace={other}"): "--palace is not served",
        ("ask", "--batch", str(secret), "--json"): "--batch is not served",
        ("ask", f"--batch={secret}"): "--batch is not served",
        ("ask", "who", "--", "--palace", str(other)): "`--` is not served",
        ("mine", str(tmp_path)): "not a served command",
        ("extract", "--file", str(secret)): "not a served command",
        ("forget", "--entity", "Bob Okafor"): "not a served command",
    }
    for argv, reason in refused.items():
        reply = _raw(palace_dir, list(argv))
        assert set(reply) == {"refused"} and reason in reply["refused"], (argv, reply)
    assert _raw(palace_dir, ["status", "--json"], palace=str(other)) == {"refused": f"this server serves {palace_dir}"}
    served = _raw(palace_dir, ["entity", "aliases", "Bob Okafor", "--json"])  # a read: served
    assert served["exit"] == 0 and json.loads(served["stdout"])["name"] == "Bob Okafor"
    assert server_info(palace_dir)["requests"] == 1
    from palace.core import Palace

    with Palace.open(palace_dir, create=False) as palace:  # no merge, no split happened
        assert palace.conn.execute("SELECT count(*) FROM entity_decisions").fetchone()[0] == 0
    process.send_signal(signal.SIGTERM)
    _, log = process.communicate(timeout=60)
    lines = [line for line in log.splitlines() if "refused a request" in line]
    assert len(lines) == len(refused) + 1
    assert any("(`palace entity merge` writes: never served): entity merge Bob Okafor Helen Marsh" in line
               for line in lines)
