"""Shared set-up of the torchtpu Python tests.

The tests run under PyPI's torch (a venv) and Debian's torch (the
torch-oracle chroot) alike. Each test session gets its own compile cache
folder, so results never depend on what an earlier run left on disk.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

IN_CI = os.environ.get("CI") == "true"


def pytest_configure(config: pytest.Config) -> None:
    if "TORCHTPU_CACHE_DIR" not in os.environ:
        import tempfile

        os.environ["TORCHTPU_CACHE_DIR"] = tempfile.mkdtemp(prefix="torchtpu-test-cache-")


def need(module: str):
    """Imports an optional test dependency: a skip on a developer's machine,
    a failure in CI (where .ci/run installs everything)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if IN_CI:
            pytest.fail(f"{module} is not installed; CI must have it")
        pytest.skip(f"{module} is not installed")


@pytest.fixture(autouse=True)
def _fresh_report():
    import torch._dynamo

    import torchtpu

    torch._dynamo.reset()
    torchtpu.reset_report()
    yield
