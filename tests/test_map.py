"""`palace map` and `palace serve --http`: what the map's data holds for the mined sample
corpus (nodes, dashed edges, valid time, citations, the changes of a window), what it
leaves out (candidates, private wings, other wings' names), and the served page's locks
(loopback, token, Host header). The page in a real browser: tests/test_map_browser.py."""

from __future__ import annotations

import datetime as dt
import http.client
import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palace.cli.main import app


def _edge(data, source: str, predicate: str, target: str):
    nodes = {n.id: n.name for n in data.nodes}
    found = [e for e in data.edges if (nodes[e.source], e.predicate, nodes[e.target]) == (source, predicate, target)]
    assert len(found) == 1, f"no edge {source} {predicate} {target}"
    return found[0]


def _valid_on(fact, day: str) -> bool:
    """The page's rule (map.js validOn), in Python."""
    if fact.valid_from and fact.valid_from[:10] > day:
        return False
    if fact.valid_to and fact.valid_to[:10] <= day:
        return False
    if not fact.valid_from and not fact.valid_to and fact.superseded_by is not None:
        return False
    return not (not fact.valid_from and fact.begins and fact.begins[:10] > day)


@pytest.fixture(scope="module")
def walled(tmp_path_factory, mined_sample):
    """The sample palace plus a private wing ``diary`` and an untrusted wing ``inbox``."""
    from palace.core import Palace

    root = tmp_path_factory.mktemp("walled")
    palace_dir = root / "palace"
    shutil.copytree(mined_sample[0], palace_dir)
    diary, inbox = root / "diary", root / "inbox"
    diary.mkdir()
    inbox.mkdir()
    (diary / "2025-02-01.md").write_text("# Private\n\nBob Okafor works at Zorblat Clinic.\n\nQuentin Vasquez"
                                         " works at Zorblat Clinic.\n")
    (inbox / "2025-03-01.md").write_text("# Forwarded\n\nJess Kowalski works at Umbrella Corp.\n")
    (palace_dir / "config.json").write_text(json.dumps({"wings": {"diary": {"private": True},
                                                                  "inbox": {"trust": "untrusted"}}}))
    with Palace.open(palace_dir, create=False) as palace:
        palace.mine(diary)
        palace.mine(inbox)
    return palace_dir


def test_the_sample_map_draws_entities_facts_and_dashed_superseded_edges(sample_palace):
    data = sample_palace.map()
    names = {n.name for n in data.nodes}
    assert {"Bob Okafor", "Helen Marsh", "Priya Raman", "Larkspur", "Alice Chen", "Acme Robotics",
            "Northwind Labs", "Starter", "Enterprise"} <= names
    assert data.entities_shown == data.entities_total and len(data.nodes) <= 200
    facts = {f.id: f for f in data.facts}
    # Bob reported to Priya until 1 July 2024, then to Helen: the old edge is drawn dashed (superseded)
    priya = _edge(data, "Bob Okafor", "reports_to", "Priya Raman")
    assert {facts[i].state for i in priya.facts} <= {"superseded", "ended"}
    helen = _edge(data, "Bob Okafor", "reports_to", "Helen Marsh")
    # four notes say it: the all-hands of 27 June announced it for 1 July (a plan, confirmed since), three state it
    assert len(helen.facts) == 4 and sorted(facts[i].state for i in helen.facts) == ["current"] * 3 + ["planned"]
    # Larkspur's plan: Enterprise (start unknown) until 2024-11-26, then Starter
    enterprise = facts[_edge(data, "Larkspur", "plan", "Enterprise").facts[0]]
    starter = facts[_edge(data, "Larkspur", "plan", "Starter").facts[0]]
    assert (enterprise.valid_from, enterprise.valid_to, enterprise.state) == (None, "2024-11-26", "ended")
    assert (starter.valid_from, starter.valid_to, starter.state) == ("2024-11-26", None, "current")
    assert _valid_on(enterprise, "2024-06-01") and not _valid_on(starter, "2024-06-01")
    assert starter.path == "meetings/2024-11-26-larkspur-renewal.md" and starter.line == 30
    assert starter.sentence.startswith("Decision: we downgrade Larkspur from the Enterprise plan to the Starter")
    assert starter.evidence == "stated" and starter.recorded_at and starter.wing == "sample"
    node = next(n for n in data.nodes if n.name == "Bob Okafor")
    assert node.type == "PERSON" and node.facts == 9 and "Bob" in node.aliases and 0.03 <= node.x <= 0.97
    change = next(c for c in data.changes if c.fact == priya.facts[-1] and c.kind == "superseded")
    assert change.day == "2024-07-01" and change.text == "Bob Okafor reports to Priya Raman → Helen Marsh"
    assert data.first_day == "2023-01-17" and data.last_day == dt.date.today().isoformat()


def test_the_page_shows_what_palace_facts_as_of_shows_on_each_day(sample_palace):
    """The slider's rule is that of `palace facts --as-of`: the same (subject, predicate,
    object) on every day a fact begins or ends, and on the days between."""
    data = sample_palace.map()
    days = sorted({d[:10] for f in data.facts for d in (f.valid_from, f.valid_to) if d})
    days += [(dt.date.fromisoformat(d) - dt.timedelta(days=1)).isoformat() for d in days]
    for day in sorted(set(days)):
        drawn = {(f.subject, f.predicate, f.object) for f in data.facts
                 if f.state != "planned" and _valid_on(f, day)}
        said = {(f.subject, f.predicate, f.object)
                for f in sample_palace.facts(as_of=dt.date.fromisoformat(day), limit=10**5).facts if f.object}
        assert drawn == said, day


def test_the_same_palace_gives_the_same_picture(sample_palace):
    first, second = sample_palace.map(), sample_palace.map()
    assert [(n.id, n.x, n.y) for n in first.nodes] == [(n.id, n.x, n.y) for n in second.nodes]
    strip = lambda page: re.sub(r'"generated_at":"[^"]*"', "", page)  # noqa: E731
    assert strip(sample_palace.map_page(first)) == strip(sample_palace.map_page(second))


def test_a_named_map_opens_on_the_name_and_a_window_keeps_its_facts(sample_palace):
    data = sample_palace.map(("Larkspur",))
    assert [n.name for n in data.nodes if n.named] == ["Larkspur"]
    # one node for the name, whatever entities it finds (the note's title is a concept of its own)
    # "Decision: we downgrade Larkspur …" and "Decision: each incident gets a write-up in Larkspur …"
    # are the renewal meeting's and the kickoff's decisions, not decisions Larkspur made
    assert {n.name for n in data.nodes} == {"Larkspur", "Enterprise", "Starter"}
    assert "Larkspur (on-call & incidents)" in next(n for n in data.nodes if n.named).aliases
    window = sample_palace.map(since=dt.date(2024, 7, 1), until=dt.date(2024, 9, 30))
    assert (window.first_day, window.last_day) == ("2024-07-01", "2024-09-30")
    assert all(c.day >= "2024-07-01" and c.day <= "2024-09-30" for c in window.changes)
    assert {c.text for c in window.changes} >= {"Bob Okafor reports to Priya Raman → Helen Marsh",
                                               "Alice Chen works at Acme Robotics"}
    assert all(not f.valid_to or f.valid_to >= "2024-07-01" for f in window.facts)
    bounded = sample_palace.map(max_nodes=10)
    assert len(bounded.nodes) == 10 and bounded.entities_shown < bounded.entities_total
    assert "Larkspur" in bounded.others or "Larkspur" in {n.name for n in bounded.nodes}


def test_candidates_and_private_wings_stay_out_unless_asked(walled):
    from palace.core import Palace

    with Palace.open(walled, create=False) as palace:
        plain = palace.map()
        text = json.dumps(palace.map_page(plain))
        assert "Zorblat" not in text and "Quentin" not in text and "Umbrella" not in text
        assert plain.private_left_out == ("diary",)
        asked = palace.map(candidates=True)
        umbrella = [f for f in asked.facts if f.object.startswith("Umbrella")]
        assert [f.state for f in umbrella] == ["candidate"] and "Zorblat" not in json.dumps(palace.map_page(asked))
        diary = palace.map(wing="diary")
        assert {n.name for n in diary.nodes} >= {"Bob Okafor", "Zorblat Clinic"} and diary.private_left_out == ()
        assert {f.wing for f in diary.facts} == {"diary"}
        # a name only the private wing holds is a name that does not exist, in the same words
        with pytest.raises(Exception) as hidden:
            palace.map(("Quentin Vasquez",))
        with pytest.raises(Exception) as unknown:
            palace.map(("Nobody Atall",))
        assert str(hidden.value) == "no entity named 'Quentin Vasquez' in this palace"
        assert str(unknown.value) == "no entity named 'Nobody Atall' in this palace"
        assert "Quentin" not in (hidden.value.hint or "") + (unknown.value.hint or "")
        with pytest.raises(Exception) as other_wing:
            palace.map(("Quentin Vasquez",), wing="sample")
        assert str(other_wing.value) == "no entity named 'Quentin Vasquez' in wing 'sample'"
        with pytest.raises(Exception, match="no wing 'nosuch'"):
            palace.map(wing="nosuch")


def test_the_page_is_self_contained_and_text_cannot_break_out(sample_palace, tmp_path):
    from palace.graph.map import MapData
    from palace.graph.map_page import render_page

    data = sample_palace.map()
    hostile = "</script><script>alert(1)</script><!-- & \u2028"
    fact = data.facts[0]
    from dataclasses import replace

    page = render_page(replace(data, facts=(replace(fact, sentence=hostile), *data.facts[1:])))
    assert "<script>alert(1)" not in page and page.count("<script") == 2
    blob = re.search(r'<script type="application/json" id="palace-map-data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(blob)["facts"][0]["sentence"] == hostile
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # no outside address anywhere
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert "default-src &#x27;none&#x27;" in csp and "connect-src &#x27;none&#x27;" in csp
    assert isinstance(data, MapData)


def test_palace_map_writes_the_page_and_json(mined_sample, tmp_path):
    palace_dir, _ = mined_sample
    out = tmp_path / "map.html"
    result = CliRunner().invoke(app, ["map", "Bob Okafor", "--out", str(out), "--palace", str(palace_dir)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {out} (") and out.read_text().startswith("<!doctype html>")
    as_json = CliRunner().invoke(app, ["map", "--json", "--since", "2024", "--until", "2024",
                                       "--palace", str(palace_dir)])
    data = json.loads(as_json.output)
    assert (data["since"], data["until"]) == ("2024-01-01", "2024-12-31")
    assert set(data) >= {"nodes", "edges", "facts", "changes", "first_day", "last_day", "entities_total"}
    unknown = CliRunner().invoke(app, ["map", "Bob Okafr", "--palace", str(palace_dir)])
    assert unknown.exit_code == 1 and "did you mean: Bob Okafor" in unknown.output


# -- palace serve --http -----------------------------------------------------------------


def _get(port: int, target: str, host: str | None = None) -> tuple[int, str, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.putrequest("GET", target, skip_host=True)
    conn.putheader("Host", host or f"127.0.0.1:{port}")
    conn.endheaders()
    response = conn.getresponse()
    body = response.read().decode()
    conn.close()
    return response.status, body, dict(response.getheaders())


def test_the_served_map_needs_the_token_and_a_loopback_host(walled):
    from palace.core import Palace

    with Palace.open(walled, create=False) as palace:
        server = palace.serve_map()
        server.start()
        try:
            port, token = server.port, server.token
            assert server._server.server_address[0] == "127.0.0.1"
            assert server.url == f"http://127.0.0.1:{port}/?token={token}" and len(token) >= 40
            assert _get(port, "/")[0] == 403
            assert _get(port, "/?token=" + token[:-1] + "x")[0] == 403
            assert _get(port, f"/?token={token}", host=f"evil.example:{port}")[0] == 403  # DNS rebinding
            assert _get(port, f"/?token={token}", host="127.0.0.1:1")[0] == 403
            status, body, headers = _get(port, f"/?token={token}")
            assert status == 200 and "palace-map-data" in body and "Zorblat" not in body
            assert "connect-src 'none'" in headers["Content-Security-Policy"]
            assert headers["Referrer-Policy"] == "no-referrer" and headers["Cache-Control"] == "no-store"
            assert _get(port, f"/?token={token}", host=f"localhost:{port}")[0] == 200
            status, body, _ = _get(port, f"/?token={token}&names=Larkspur&since=2024-01-01")
            data = json.loads(re.search(r'id="palace-map-data">(.*?)</script>', body, re.S).group(1))
            assert data["names"] == ["Larkspur"] and data["since"] == "2024-01-01" and data["served"] is True
            assert _get(port, f"/elsewhere?token={token}")[0] == 404
            status, body, _ = _get(port, f"/?token={token}&names=Quentin%20Vasquez")
            assert status == 404 and "no entity named &#x27;Quentin Vasquez&#x27; in this palace" in body
        finally:
            server.stop()
        limited = palace.serve_map(wing="sample")
        limited.start()
        try:
            hidden = _get(limited.port, f"/?token={limited.token}&names=Quentin%20Vasquez")
            missing = _get(limited.port, f"/?token={limited.token}&names=Nobody%20Atall")
            assert hidden[0] == missing[0] == 404
            assert hidden[1].replace("Quentin Vasquez", "X") == missing[1].replace("Nobody Atall", "X")
            status, body, _ = _get(limited.port, f"/?token={limited.token}")
            assert status == 200 and "Zorblat" not in body and "Umbrella" not in body
        finally:
            limited.stop()


@pytest.mark.slow
def test_palace_serve_http_prints_its_url_and_stops_on_sigterm(mined_sample):
    import os
    import signal
    import subprocess
    import sys

    palace_dir, _ = mined_sample
    exe = str(Path(sys.executable).parent / "palace")
    proc = subprocess.Popen([exe, "serve", "--http", "--palace", str(palace_dir)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PALACE_SERVER": "off"})
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", line)
        assert url, line
        status, body, _ = _get(int(url.group(1)), f"/?token={url.group(2)}")
        assert status == 200 and "palace-map-data" in body
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "stopped after 1 requests" in out
    assert url.group(2) not in err  # the log never holds the token
