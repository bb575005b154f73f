"""An installed wheel puts only `palace` into site-packages, with the model inside it."""

from __future__ import annotations

import pytest

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_holds_only_the_palace_package(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(REPO)],
        check=True, capture_output=True,
    )
    wheel = next(tmp_path.glob("palace-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"palace"}
    assert "palace/cli/main.py" in names and "palace/nlp/extraction.py" in names
    assert "palace/store/facts.py" in names and "palace/nlp/registry.py" in names
    assert "palace/models/all-MiniLM-L6-v2/model.onnx" in names
    assert "palace/models/all-MiniLM-L6-v2/LICENSE" in names
    assert "palace/py.typed" in names
    assert "palace/data/predicates.json" in names


def test_the_public_surface_and_python_dash_m():
    import subprocess
    import sys

    import palace

    assert palace.__all__ == ["Palace"]
    from palace import Palace
    from palace.core import Palace as core_palace

    assert Palace is core_palace
    done = subprocess.run([sys.executable, "-m", "palace", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("palace ")
