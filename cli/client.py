"""The thin client of the warm server: hand a read command to the process that already
has the models and the vector index open, and print what it printed.

A watcher (``palace watch``, ``palace daemon``) and ``palace serve`` listen on
``palace.sock`` inside the palace folder (owner-only; see :mod:`palace.cli.serve`). A
cold ``palace ask|status|facts|history|entity|changes|card`` looks for that socket first,
sends its arguments, and prints the served stdout and stderr with the served exit code:
the same text and the same JSON as when run here, without importing chromadb, ONNX or
typer. When there is no server, or it refuses (another palace, another ``palace``
install, another Chroma server), the command runs in this process as before; when it
does not answer within a few seconds (:func:`palace.config.server_timeout`: a stopped
or hung server), it runs here too and says so on stderr. Writes (``entity merge``/``split``), ``ask --batch`` (it reads stdin) and
``--help`` always run here, and so does every command when ``$PALACE_SERVER`` is
``off``.

This module imports only the standard library and :mod:`palace.config`, so that a
served command costs the interpreter's start and one round trip.
"""

from __future__ import annotations

import json
import os
import socket
import sys

#: The socket's file name inside the palace folder.
SOCKET_FILE = "palace.sock"
#: Bumped when the request or reply changes shape.
PROTOCOL = 1
#: Commands a server may answer: they only read.
SERVED = frozenset({"ask", "status", "facts", "history", "entity", "changes", "card"})
#: Longest path an AF_UNIX socket can be bound or reached at on Linux (sun_path less its NUL).
MAX_SOCKET_PATH = 107
#: Seconds to wait for a connection before running here; the whole answer is waited for
#: :func:`palace.config.server_timeout` seconds (3 by default), then the command runs
#: here and says why on stderr: a stopped or hung server costs a moment, not minutes.
CONNECT_TIMEOUT_S = 0.5
#: Environment that shapes the output (width, colour), sent so the server renders alike.
TERMINAL_ENV = ("COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")


def code_id() -> str:
    """Which ``palace`` code this is: its package folder and the modification time of its
    ``__init__.py`` (an upgrade in place rewrites it). A server running other code
    refuses, so an answer never comes from a stale install."""
    from palace import config  # a module of the package: its folder is the package's

    init = os.path.join(os.path.dirname(config.__file__ or ""), "__init__.py")
    try:
        stamp = os.stat(init).st_mtime_ns
    except OSError:
        stamp = 0
    return f"{os.path.dirname(init)}:{stamp}"


def socket_path(palace_dir: str | os.PathLike[str]) -> str:
    """The server's socket inside ``palace_dir``."""
    return os.path.join(os.fspath(palace_dir), SOCKET_FILE)


def served_request(argv: list[str]) -> dict | None:
    """The request for ``argv`` (the arguments after ``palace``), or None when this
    command must run here. ``--palace`` is taken out of the arguments and resolved here
    (``--palace`` > ``$PALACE_PATH`` > ``~/.palace``), so a relative path means what it
    means in the caller's folder."""
    if not argv or argv[0] not in SERVED or "--" in argv:
        return None
    if any(arg in ("--help", "-h", "--batch") or arg.startswith("--batch=") for arg in argv):
        return None
    if argv[0] == "entity" and any(arg in ("merge", "split") for arg in argv[1:]):
        return None
    args: list[str] = []
    explicit: str | None = None
    rest = iter(argv)
    for arg in rest:
        if arg == "--palace":
            explicit = next(rest, None)
            if explicit is None:
                return None  # let the local parser say what is wrong
        elif arg.startswith("--palace="):
            explicit = arg.split("=", 1)[1]
        else:
            args.append(arg)
    from palace.config import resolve_palace_path

    try:
        palace_dir = str(resolve_palace_path(explicit))
    except (OSError, RuntimeError):
        return None
    return {
        "protocol": PROTOCOL,
        "code": code_id(),
        "palace": palace_dir,
        "argv": args,
        "chroma_url": os.environ.get("PALACE_CHROMA_URL") or None,
        "tty": {"stdout": _isatty(sys.stdout), "stderr": _isatty(sys.stderr)},
        "env": {key: os.environ[key] for key in TERMINAL_ENV if key in os.environ},
        "columns": _columns(),
    }


def server_info(palace_dir: str | os.PathLike[str]) -> dict | None:
    """What the server of ``palace_dir`` says of itself — ``{"palace", "pid",
    "requests", "code"}`` — or None when none answers."""
    path = socket_path(palace_dir)
    if len(path.encode()) > MAX_SOCKET_PATH or not os.path.exists(path):
        return None
    reply = _exchange(path, {"protocol": PROTOCOL, "info": True})
    return reply if reply and "pid" in reply else None


def forward(argv: list[str]) -> int | None:
    """Run ``argv`` on this palace's server: print its stdout and stderr here and return
    its exit code; None when it must run here (see :func:`served_request`). Never
    raises for a missing, stale or refusing server."""
    if os.environ.get("PALACE_SERVER", "").lower() in ("off", "0", "no", "false"):
        return None
    request = served_request(argv)
    if request is None:
        return None
    path = socket_path(request["palace"])
    if len(path.encode()) > MAX_SOCKET_PATH or not os.path.exists(path):
        return None
    from palace.config import server_timeout

    timeout = server_timeout(request["palace"])
    reply = _exchange(path, request, timeout)
    if reply is _SILENT:
        sys.stderr.write(f"palace: the server at {path} did not answer within {timeout:g} s;"
                         f" answering here (set {_TIMEOUT_SETTING} to wait longer)\n")
        sys.stderr.flush()
        return None
    if reply is None or "exit" not in reply:
        return None
    sys.stdout.write(reply.get("stdout", ""))
    sys.stdout.flush()
    sys.stderr.write(reply.get("stderr", ""))
    sys.stderr.flush()
    return int(reply["exit"])


#: What :func:`_exchange` returns when the server took the request but gave no answer in time.
_SILENT: dict = {}
#: Where a user sets how long to wait (said in the fallback's message).
_TIMEOUT_SETTING = '$PALACE_SERVER_TIMEOUT or "server": {"timeout_s": …} in config.json'


def _exchange(path: str, request: dict, timeout: float = 3.0) -> dict | None:
    """Send one request line and read one reply line, the whole of it within ``timeout``
    seconds; :data:`_SILENT` when the server connected but did not answer in time (it is
    stopped or hung), None on any other failure."""
    import time

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        sock.connect(path)
        deadline = time.monotonic() + timeout
        sock.settimeout(timeout)
        sock.sendall(json.dumps(request).encode("ascii") + b"\n")
        chunks = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return _SILENT
            sock.settimeout(left)
            try:
                chunk = sock.recv(1 << 16)
            except socket.timeout:
                return _SILENT
            if not chunk:
                break
            chunks.append(chunk)
        reply = json.loads(b"".join(chunks).decode("ascii"))
        return reply if isinstance(reply, dict) else None
    except (OSError, ValueError):  # no server, refused, cut off, garbled
        return None
    finally:
        sock.close()


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _columns() -> int | None:
    for stream in (sys.stdout, sys.stderr, sys.stdin):
        try:
            return os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            continue
    return None
