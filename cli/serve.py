"""``palace serve``: the warm server, and the server a watcher runs beside its work.

One process keeps the palace open — the embedding model loaded, the vector index read,
the query modules imported — and answers the read commands of cold ``palace`` processes
(:mod:`palace.cli.client`) over a Unix socket, ``palace.sock`` in the palace folder:

* **Private.** The folder is owner-only, the socket is made ``0600``, and a peer whose
  user id is not this process's is refused (``SO_PEERCRED`` where the system has it).
* **The same output.** A request is the command's arguments; the server runs the very
  command a cold process would run (its typer command, in a thread of its own), on the
  lent handle (:meth:`palace.core.Palace.lend`), with its stdout and stderr captured
  for that thread only (:class:`RoutedStream`) and rendered for the caller's terminal
  (:data:`palace.cli.app.TERMINAL`). The reply is that text and the exit code.
* **Never the wrong answer.** A request for another palace, from another ``palace``
  install, or with another Chroma server is refused, and the client runs the command
  itself.
* **One server per palace**: an exclusive ``flock`` on ``serve.lock``, held for the life
  of the server (the kernel drops it when the process dies, so a stale socket is
  replaced by the next server, and a client meeting it falls back at once).

A request is one JSON line (:func:`palace.cli.client.served_request`), the reply one
JSON line ``{"exit", "stdout", "stderr"}`` or ``{"refused": reason}``.
"""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import socket
import socketserver
import struct
import sys
import threading
import traceback
from pathlib import Path
from typing import Callable, Optional

import typer

from palace.cli.app import TERMINAL, PalaceOption, Terminal, app, guarded
from palace.cli.client import MAX_SOCKET_PATH, PROTOCOL, SERVED, code_id, socket_path
from palace.errors import AlreadyServing, PalaceError, UsageError

log = logging.getLogger("palace.serve")

#: Longest request line read, in bytes (a question is short; arguments are few).
MAX_REQUEST_BYTES = 1 << 20


class RoutedStream(io.TextIOBase):
    """``sys.stdout`` / ``sys.stderr`` of a serving process: a thread answering a request
    writes into that request's buffer (and sees the caller's ``isatty``); every other
    thread writes to the real stream. Installed once per process by :func:`route`."""

    def __init__(self, real) -> None:
        self.real = real
        self._local = threading.local()

    def capture(self, buffer: io.StringIO | None, tty: bool = False) -> None:
        """Send this thread's writes to ``buffer`` (None: to the real stream again)."""
        self._local.buffer = buffer
        self._local.tty = tty

    def _buffer(self) -> io.StringIO | None:
        return getattr(self._local, "buffer", None)

    def write(self, text: str) -> int:
        buffer = self._buffer()
        return (buffer if buffer is not None else self.real).write(text)

    def flush(self) -> None:
        if self._buffer() is None:
            self.real.flush()

    def isatty(self) -> bool:
        return self._local.tty if self._buffer() is not None else self.real.isatty()

    def fileno(self) -> int:
        if self._buffer() is not None:
            raise io.UnsupportedOperation("a served command's stream has no file descriptor")
        return self.real.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8" if self._buffer() is not None else self.real.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return "strict" if self._buffer() is not None else self.real.errors


_ROUTE_LOCK = threading.Lock()


def route() -> tuple[RoutedStream, RoutedStream]:
    """Install :class:`RoutedStream` as ``sys.stdout`` and ``sys.stderr`` (once) and
    return them."""
    with _ROUTE_LOCK:
        if not isinstance(sys.stdout, RoutedStream):
            sys.stdout = RoutedStream(sys.stdout)
        if not isinstance(sys.stderr, RoutedStream):
            sys.stderr = RoutedStream(sys.stderr)
    return sys.stdout, sys.stderr  # type: ignore[return-value]


class Server:
    """Serve ``palace`` (an open handle, which the server lends while it runs and does
    not close) on ``palace.sock``. :meth:`start` raises :class:`AlreadyServing` when
    another process serves it and :class:`UsageError` when the socket path is too long
    for the system (more than 107 bytes)."""

    def __init__(self, palace) -> None:
        self.palace = palace
        self.path = Path(palace.path)
        self.socket = socket_path(self.path)
        self.requests = 0
        self._active = 0
        self._idle = threading.Condition()
        self._release: Callable[[], None] | None = None
        self._server: socketserver.ThreadingMixIn | None = None
        self._thread: threading.Thread | None = None
        self._lending = None
        self._code = code_id()
        self._chroma_url = os.environ.get("PALACE_CHROMA_URL") or None

    def start(self, *, warm: bool = True) -> None:
        """Take the serve lock, bind the socket, lend the handle and answer requests in
        a background thread. With ``warm``, first load what a question needs."""
        if len(self.socket.encode()) > MAX_SOCKET_PATH:
            raise UsageError(f"cannot serve {self.path}: the socket path {self.socket} is longer than"
                             f" {MAX_SOCKET_PATH} bytes", hint="use a palace folder with a shorter path")
        release = self.palace.claim_server()
        if release is None:
            raise AlreadyServing(f"another process serves {self.path} already",
                                 hint="its answers are the same; stop it first to serve from here")
        self._release = release
        try:
            if warm:
                self._warm()
            import typer.main

            # every command module has registered itself on `app` by now: a server is started
            # by a command of palace.cli.main's app (`serve`, `watch`)
            self.command = typer.main.get_command(app)
            route()
            try:
                os.unlink(self.socket)  # a dead server's; we hold the lock
            except FileNotFoundError:
                pass
            self._server = _SocketServer(self.socket, _Handler, owner=self)
            os.chmod(self.socket, 0o600)
            self._lending = self.palace.lend()
            self._lending.__enter__()
            self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.5},
                                            name="palace-serve", daemon=True)
            self._thread.start()
        except BaseException:
            self.stop()
            raise
        log.info("serving %s on %s", self.path, self.socket)

    def stop(self, patience_s: float = 30.0) -> None:
        """Stop answering, let the requests in flight finish (at most ``patience_s``
        seconds), remove the socket and drop the lock (the handle stays open)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
            try:
                os.unlink(self.socket)
            except FileNotFoundError:
                pass
            with self._idle:
                self._idle.wait_for(lambda: self._active == 0, timeout=patience_s)
        if self._lending is not None:
            self._lending.__exit__(None, None, None)
            self._lending = None
        if self._release is not None:
            self._release()
            self._release = None

    def _warm(self) -> None:
        """Load the embedding model and the vector index and import the query path, by
        answering one question (an empty palace answers nothing, which is fine), then
        read the stored vectors into memory for exact scans (:meth:`palace.store.vectors.
        VectorStore.preload`: about 3 s and 190 MB at 126,616 drawers)."""
        try:
            self.palace.ask("what changed", top_k=1)
        except PalaceError as exc:
            log.info("warm-up question not answered: %s", exc.message)
        log.info("%d vectors held in memory", self.palace.vectors.preload())

    def answer(self, request: dict) -> dict:
        """The reply to one request: ``{"exit", "stdout", "stderr"}``, or ``{"refused":
        reason}`` when the client must run the command itself."""
        if request.get("info") is True:
            return {"palace": str(self.path), "pid": os.getpid(), "requests": self.requests, "code": self._code}
        refused = self._refusal(request) or (None if self._server is not None else "stopping")
        if refused:
            return {"refused": refused}
        with self._idle:
            self._active += 1
        try:
            return self._answer(request)
        finally:
            with self._idle:
                self._active -= 1
                self._idle.notify_all()

    def _answer(self, request: dict) -> dict:
        tty = request.get("tty") or {}
        env = {str(k): str(v) for k, v in (request.get("env") or {}).items()}
        width = request.get("columns")
        if not isinstance(width, int) or width <= 0:
            width = int(env["COLUMNS"]) if env.get("COLUMNS", "").isdigit() else 80
        out, err = io.StringIO(), io.StringIO()
        stdout, stderr = route()
        token = TERMINAL.set(Terminal(bool(tty.get("stdout")), bool(tty.get("stderr")), width, env))
        stdout.capture(out, bool(tty.get("stdout")))
        stderr.capture(err, bool(tty.get("stderr")))
        try:
            argv = list(request["argv"])  # --palace right after the command: a trailing option must not take it
            code = self._run(argv[:1] + ["--palace", str(self.path)] + argv[1:])
        finally:
            stdout.capture(None)
            stderr.capture(None)
            TERMINAL.reset(token)
        self.requests += 1
        return {"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}

    def _run(self, args: list[str]) -> int:
        try:
            self.command.main(args=args, prog_name="palace", standalone_mode=True)
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                return exc.code or 0
            print(exc.code, file=sys.stderr)
            return 1
        except Exception:  # a bug: say it to this caller, keep serving the others
            traceback.print_exc()
            return 1
        return 0

    def _refusal(self, request: dict) -> str | None:
        if request.get("protocol") != PROTOCOL:
            return f"protocol {request.get('protocol')!r}, this server speaks {PROTOCOL}"
        if request.get("code") != self._code:
            return "another palace install"
        if request.get("palace") != str(self.path):
            return f"this server serves {self.path}"
        if (request.get("chroma_url") or None) != self._chroma_url:
            return "another Chroma server"
        argv = request.get("argv")
        if not isinstance(argv, list) or not argv or argv[0] not in SERVED or not all(isinstance(a, str) for a in argv):
            return "not a served command"
        return None


class _SocketServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, path: str, handler, *, owner: Server) -> None:
        self.owner = owner
        super().__init__(path, handler)


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        if not _same_user(self.request):
            self._reply({"refused": "another user"})
            return
        try:
            request = json.loads(self.rfile.readline(MAX_REQUEST_BYTES))
            if not isinstance(request, dict):
                raise ValueError("not a JSON object")
        except (ValueError, UnicodeDecodeError) as exc:
            self._reply({"refused": f"not a request: {exc}"})
            return
        self._reply(self.server.owner.answer(request))  # type: ignore[attr-defined]

    def _reply(self, reply: dict) -> None:
        try:
            self.wfile.write(json.dumps(reply).encode("ascii") + b"\n")
        except OSError:  # the client went away
            pass


def _same_user(sock: socket.socket) -> bool:
    """Whether the peer runs as this process's user (True where the system cannot say:
    the owner-only folder and socket still keep others out)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return False
    return uid == os.getuid()


@app.command()
@guarded
def serve(
    port: Optional[int] = typer.Argument(None, metavar="[PORT]", min=0, max=65535,
                                         help="With --http: the port (default: a free one)."),
    http: bool = typer.Option(False, "--http", help="Serve the map (palace map) to a browser on 127.0.0.1,"
                                                     " behind a token printed in the URL."),
    wing: Optional[str] = typer.Option(None, "--wing", help="With --http: only this wing (a private wing needs it)."),
    palace_dir: Optional[Path] = PalaceOption,
) -> None:
    """Answer `palace ask`, `status`, `facts`, `history`, `entity`, `changes` and `card` from this
    warm process until Ctrl-C or SIGTERM, for scripts and agents (a watcher does the same
    while it runs). Their output is the same; they answer in a tenth of the time. With
    --http [PORT], serve the map to a browser instead."""
    from palace.core import Palace

    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    if not http and (port is not None or wing is not None):
        raise UsageError("PORT and --wing go with --http", hint="palace serve --http 8765 --wing notes")
    if http:
        _serve_map(palace_dir, port or 0, wing, stopping)
        return
    with Palace.open(palace_dir, create=False) as palace:
        server = Server(palace)
        server.start()
        typer.echo(f"serving {palace.path} on {server.socket} (pid {os.getpid()}); Ctrl-C stops")
        sys.stdout.flush()
        try:
            while not stopping.wait(1.0):
                pass
        finally:
            server.stop()
    typer.echo(f"stopped after {server.requests} requests")


def _serve_map(palace_dir: Optional[Path], port: int, wing: Optional[str], stopping: threading.Event) -> None:
    """``palace serve --http``: the map on 127.0.0.1 behind a token, until ``stopping``."""
    from palace.core import Palace

    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
    with Palace.open(palace_dir, create=False) as palace:
        server = palace.serve_map(port=port, wing=wing)
        server.start()
        typer.echo(f"serving the map of {palace.path}{f' (wing {wing})' if wing else ''} at {server.url}")
        typer.echo("only this URL opens it (its token changes at every start); Ctrl-C stops")
        sys.stdout.flush()
        try:
            while not stopping.wait(0.5):
                pass
        finally:
            server.stop()
    typer.echo(f"stopped after {server.requests} requests")
