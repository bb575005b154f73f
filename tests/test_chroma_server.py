"""A Chroma server through the vector-store seam: a real ``chroma run`` on loopback,
started by the test; palace mines, answers, forgets and checks exactly as with the
embedded store, and keeps nothing of the vectors locally."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace
from palace.store.vectors import ChromaServer

pytestmark = pytest.mark.slow  # starts a server process

CHROMA = Path(sys.executable).parent / "chroma"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``http://127.0.0.1:PORT`` of a fresh ``chroma run``, stopped after the module."""
    if not CHROMA.exists():
        pytest.skip("the chroma CLI is not installed beside this Python")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data = tmp_path_factory.mktemp("chroma-server")
    proc = subprocess.Popen([str(CHROMA), "run", "--path", str(data), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("chroma run did not start")
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def _notes(root: Path) -> Path:
    root.mkdir()
    (root / "2024-04-12.md").write_text("# Sync\n\nAlice Chen joined Acme Robotics in Berlin.\n")
    (root / "2024-05-02.md").write_text("# Budget\n\nWe decided to cut the Harbor travel budget by 10%.\n")
    return root


def test_a_palace_on_a_chroma_server_behaves_as_the_embedded_one(tmp_path, server):
    notes = _notes(tmp_path / "notes")
    palace_dir = tmp_path / "palace"
    palace_dir.mkdir()
    (palace_dir / "config.json").write_text(json.dumps({"vectors": {"url": server, "collection": "team-notes"}}))
    with Palace.open(palace_dir) as palace:
        assert isinstance(palace.vectors, ChromaServer)
        report = palace.mine(notes)
        assert report.embedded == 2 and palace.vectors.count() == 2
        top = palace.ask("which company did Alice move to").results[0]
        assert top.path == "2024-04-12.md" and "vector" in {c.retriever for c in top.why.retrievers}
        (notes / "2024-05-02.md").unlink()
        palace.mine(notes)
        assert palace.vectors.ids() == {top.drawer_id}
        assert palace.doctor().ok
    assert not (palace_dir / "chroma").exists()  # nothing of the vectors is kept locally
    # another palace on the same server, in its own collection, through --chroma-url
    other = _notes(tmp_path / "other")
    shutil.rmtree(other)
    other.mkdir()
    (other / "2024-06-01.md").write_text("# Ops\n\nPriya Raman moved to Lisbon.\n")
    out = CliRunner().invoke(app, ["--chroma-url", server, "mine", str(other), "--palace", str(tmp_path / "p2")])
    assert out.exit_code == 0, out.output
    with Palace.open(tmp_path / "p2") as second:
        # the default collection: its vectors are not the first palace's
        assert second.vectors.count() == 1 and top.drawer_id not in second.vectors.ids()


def test_an_unreachable_server_is_an_error_with_a_hint(tmp_path):
    notes = _notes(tmp_path / "notes")
    out = CliRunner().invoke(app, ["--chroma-url", "http://127.0.0.1:9", "mine", str(notes),
                                   "--palace", str(tmp_path / "palace")])
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert "cannot use the Chroma server at http://127.0.0.1:9" in out.output and "chroma run" in out.output
