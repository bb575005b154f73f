"""``python -m palace``: the ``palace`` command."""

from palace.cli.main import run

run()
