"""``palace serve --http``: the page of ``palace map``, served live on 127.0.0.1 only.

Only the user who started it can read it:

* **Loopback only.** The server binds ``127.0.0.1``; nothing off the machine reaches it.
* **A token.** A random token (:func:`secrets.token_urlsafe`, 32 bytes) is made at start
  and printed as part of the URL; every request must carry it (``?token=…``), compared in
  constant time, or gets 403. Another local user, or a web page in the user's browser
  (which cannot read the token), gets nothing.
* **The Host header.** Only ``127.0.0.1:PORT`` and ``localhost:PORT`` are answered (403
  otherwise): a page on another site that rebinds its own name to 127.0.0.1 (DNS
  rebinding) sends its own host name and is refused.
* **Nothing leaks from the page**: the response forbids every connection, frame and
  form (Content-Security-Policy), sends no referrer, and is never cached.

A request is ``GET /?token=…`` with the map's query: ``names`` (repeatable: entities to
centre on), ``since`` and ``until`` (days), ``candidates=1`` and ``nodes=N``. The wing is
fixed when the server starts (:meth:`palace.core.Palace.serve_map`); a query cannot
widen it. The log says each request's method, path and status, never its query (the
token stays out of it).
"""

from __future__ import annotations

import html
import logging
import secrets
import threading
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import parse_qs, urlsplit

from palace.errors import PalaceError, UsageError, translate

__all__ = ["MapQuery", "MapServer", "HOST"]

log = logging.getLogger("palace.map_server")

#: The one address the server binds.
HOST = "127.0.0.1"
#: Longest query string read, in characters.
MAX_QUERY = 4096


@dataclass(frozen=True)
class MapQuery:
    """What a request asks the map for: ``names`` to centre on, the window's ``since``
    and ``until`` as given (days or periods, read by the page function), ``candidates``,
    and ``nodes`` (None: the default budget)."""

    names: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None
    candidates: bool = False
    nodes: int | None = None


class MapServer:
    """Serve ``page(query) -> html`` (a :class:`MapQuery` in, the map's page out; a
    :class:`PalaceError` for a query it cannot answer) on ``127.0.0.1:port`` (0: a free
    port) behind a random token. :meth:`start` binds and answers in a thread;
    :meth:`stop` ends it."""

    def __init__(self, page: Callable[[MapQuery], str], *, port: int = 0) -> None:
        self.page = page
        self.token = secrets.token_urlsafe(32)
        self._wanted_port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.requests = 0

    @property
    def port(self) -> int:
        """The port bound (after :meth:`start`)."""
        if self._server is None:
            raise RuntimeError("the map server is not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """The URL to open, token included."""
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def start(self) -> None:
        """Bind ``127.0.0.1`` and answer in a background thread. Raises
        :class:`UsageError` when the port cannot be bound (in use, or privileged)."""
        try:
            self._server = _Server((HOST, self._wanted_port), _Handler, owner=self)
        except OSError as exc:
            raise UsageError(f"cannot listen on {HOST}:{self._wanted_port}: {exc.strerror or exc}",
                             hint="pick another port, or none for a free one: palace serve --http") from None
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.5},
                                        name="palace-map-http", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop answering and close the socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def allowed_hosts(self) -> set[str]:
        """The Host headers answered: ``127.0.0.1:PORT`` and ``localhost:PORT``."""
        return {f"{HOST}:{self.port}", f"localhost:{self.port}"}

    def answer(self, host: str | None, target: str) -> tuple[int, str]:
        """The status and the HTML body for a GET of ``target`` (path and query) with the
        Host header ``host``: 403 for another host or a missing or wrong token, 404 for a
        path other than ``/``, 400 or 404 for a query the map cannot answer, 200 and the
        page otherwise."""
        if host is None or host.lower() not in self.allowed_hosts():
            return HTTPStatus.FORBIDDEN, _message("Forbidden", "this server answers only 127.0.0.1 and localhost")
        parts = urlsplit(target)
        if len(parts.query) > MAX_QUERY:
            return HTTPStatus.REQUEST_URI_TOO_LONG, _message("Too long", "the query is too long")
        query = parse_qs(parts.query, keep_blank_values=True)
        token = (query.get("token") or [""])[0]
        if not secrets.compare_digest(token.encode(), self.token.encode()):
            return HTTPStatus.FORBIDDEN, _message("Forbidden", "open the URL that `palace serve --http` printed")
        if parts.path != "/":
            return HTTPStatus.NOT_FOUND, _message("Not found", "the map is at /")
        try:
            wanted = MapQuery(
                names=tuple(n for v in query.get("names", []) for n in [v.strip()] if n),
                since=(query.get("since") or [None])[0] or None, until=(query.get("until") or [None])[0] or None,
                candidates=(query.get("candidates") or [""])[0] in ("1", "true", "yes", "on"),
                nodes=_nodes((query.get("nodes") or [None])[0]))
            return HTTPStatus.OK, self.page(wanted)
        except Exception as exc:
            error = translate(exc)
            if error is None:
                log.exception("the map failed")
                return HTTPStatus.INTERNAL_SERVER_ERROR, _message("Error", "the map failed; see the server's log")
            status = HTTPStatus.NOT_FOUND if error.message.startswith("no entity named") else HTTPStatus.BAD_REQUEST
            return status, _message("No map", error.message, error.hint)


def _nodes(value: str | None) -> int | None:
    if not value:
        return None
    if not value.isdigit() or not 1 <= int(value) <= 2000:
        raise UsageError(f"nodes: {value!r} is not a number from 1 to 2000")
    return int(value)


def _message(title: str, text: str, hint: str | None = None) -> str:
    """A small HTML page saying ``text`` (escaped)."""
    extra = f"<p>hint: {html.escape(hint)}</p>" if hint else ""
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"</head><body><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>{extra}</body></html>")


#: Headers of every response.
HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, address, handler, *, owner: MapServer) -> None:
        self.owner = owner
        super().__init__(address, handler)


class _Handler(BaseHTTPRequestHandler):
    server_version = "palace"
    sys_version = ""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        owner: MapServer = self.server.owner  # type: ignore[attr-defined]
        status, body = owner.answer(self.headers.get("Host"), self.path)
        owner.requests += 1
        self._send(status, body)

    def do_HEAD(self) -> None:  # noqa: N802
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, "", allow="GET")

    def do_POST(self) -> None:  # noqa: N802
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, "", allow="GET")

    def _send(self, status: int, body: str, **extra: str) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        for name, value in HEADERS.items():
            self.send_header(name, value)
        if status == HTTPStatus.OK:
            from palace.graph.map_page import page_csp

            self.send_header("Content-Security-Policy", page_csp() + "; frame-ancestors 'none'")
        else:
            self.send_header("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
        for name, value in extra.items():
            self.send_header(name.capitalize(), value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's name)
        """Log the method, the path without its query (the token stays out) and the status."""
        log.info("%s %s → %s", self.command, urlsplit(self.path).path, args[1] if len(args) > 1 else "")
