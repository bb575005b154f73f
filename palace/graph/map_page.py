"""The page of ``palace map``: one self-contained HTML file from a :class:`MapData`.

The page is plain SVG drawn by a little vanilla JavaScript (``palace/data/map/``: the
template, its style sheet and its script, shipped as package data); the map's data rides
inside it as JSON in a ``<script type="application/json">`` block. Nothing is fetched:
the Content-Security-Policy allows only the page's own style and script (by their
SHA-256) and ``data:`` images, and no connection at all, so the page works offline and
cannot reach out even if asked to. Text from the notes is escaped for the JSON block
(``<``, ``>``, ``&`` as ``\\u`` escapes) and set with ``textContent`` by the script.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from importlib import resources

from palace.graph.map import MapData
from palace.results import to_data

__all__ = ["render_page", "csp", "page_csp"]


def _asset(name: str) -> str:
    return resources.files("palace").joinpath("data", "map", name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def csp(style: str, script: str) -> str:
    """The page's Content-Security-Policy: its own ``style`` and ``script`` by hash,
    ``data:`` images, nothing else — no connection, no form, no base (a served page adds
    ``frame-ancestors 'none'`` in its header, where it counts)."""
    return (f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(style)}; img-src data:;"
            " connect-src 'none'; base-uri 'none'; form-action 'none'")


def page_csp() -> str:
    """The Content-Security-Policy of every page :func:`render_page` writes."""
    return csp(_asset("map.css"), _asset("map.js"))


def render_page(data: MapData, *, served: bool = False) -> str:
    """The HTML page of ``data``: self-contained, offline. ``served``: the page is served
    by ``palace serve --http`` (its search links to maps of names it does not draw,
    keeping the page's query string and token) rather than written to a file."""
    style, script = _asset("map.css"), _asset("map.js")
    payload = to_data(data)
    payload["served"] = served
    blob = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    blob = blob.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    blob = blob.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    title = "palace map" + (f" — {', '.join(data.names)}" if data.names else "")
    values = {"CSP": html.escape(csp(style, script), quote=True), "TITLE": html.escape(title), "STYLE": style,
              "SCRIPT": script, "DATA": blob}
    # one pass over the template: a marker's text inside a value is never replaced again
    return re.sub(r"__(CSP|TITLE|STYLE|SCRIPT|DATA)__", lambda m: values[m.group(1)], _asset("map.html"))
