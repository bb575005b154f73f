"""The unit tier (``pytest -m unit``) loads neither spaCy, nor the ONNX runtime, nor
Chroma: conftest's hooks fail a unit test that does. A checker that sees nothing passes
everything, so this plants offenders in a folder of their own and runs pytest on it
with this conftest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

PLANTED = '''
import sys
import types

import pytest


def load(name):
    sys.modules[name] = types.ModuleType(name)  # as if imported: no time spent


@pytest.fixture
def loads_chroma():
    load("chromadb")


@pytest.mark.unit
def test_unit_loads_spacy():
    load("spacy")


@pytest.mark.unit
def test_unit_setup_loads_chroma(loads_chroma):
    pass


@pytest.mark.unit
def test_unit_light():
    assert "palace" not in sys.modules


def test_not_unit_may_load_onnxruntime():
    load("onnxruntime")
'''


def _run(folder: Path, *args: str) -> str:
    (folder / "conftest.py").write_text((HERE / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "pytest.ini").write_text("[pytest]\nmarkers =\n    unit: the unit tier\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "--rootdir", str(folder), *args, str(folder)],
                          capture_output=True, text=True, cwd=folder, timeout=120,
                          env={**os.environ, "COLUMNS": "400"})  # summary lines whole
    return done.stdout + done.stderr


def test_a_unit_test_that_loads_a_heavy_module_fails_and_the_others_pass(tmp_path):
    (tmp_path / "test_planted.py").write_text(PLANTED, encoding="utf-8")
    out = _run(tmp_path)
    assert ("FAILED test_planted.py::test_unit_loads_spacy - Failed: a unit test may not load spacy, and its"
            " call did") in out
    assert ("ERROR test_planted.py::test_unit_setup_loads_chroma - Failed: a unit test may not load chromadb, and"
            " its setup did") in out
    assert "1 failed, 2 passed, 1 error" in out, out  # passed: the light one, the one not marked unit


def test_a_test_module_that_imports_a_heavy_module_at_its_top_fails_the_unit_tier(tmp_path):
    (tmp_path / "test_light.py").write_text("import pytest\n\n\n@pytest.mark.unit\ndef test_light():\n    pass\n",
                                            encoding="utf-8")
    (tmp_path / "test_heavy_top.py").write_text(
        "import sys\nimport types\n\nsys.modules['onnxruntime'] = types.ModuleType('onnxruntime')\n\n\n"
        "def test_real_model():\n    pass\n", encoding="utf-8")
    out = _run(tmp_path, "-m", "unit")
    assert "ERROR test_light.py::test_light - Failed: collecting the tests loaded onnxruntime" in out, out
    assert "1 deselected, 1 error" in out, out
