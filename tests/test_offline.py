"""Offline and private: mining and asking open no network socket."""

from __future__ import annotations

import socket

import pytest

from palace.core import Palace


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
