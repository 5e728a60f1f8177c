"""Shared set-up of the torchtpu Python tests.

The tests run under PyPI's torch and Debian's torch alike, against one of:

- the installed wheel (``TORCHTPU_TEST_ENV=wheel``, scripts/test-wheel.sh):
  the tests are copied out of the checkout and must import torchtpu from
  site-packages, as a user does;
- the checkout's package (``python/``, put first on sys.path here): an
  editable venv, or the torch-oracle chroot (``TORCHTPU_TEST_ENV=chroot``).

Each test session gets its own compile cache folder, so results never
depend on what an earlier run left on disk.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEST_ENV = os.environ.get("TORCHTPU_TEST_ENV", "")
if TEST_ENV != "wheel":
    sys.path.insert(0, str(ROOT))

IN_CI = os.environ.get("CI") == "true"


def _check_installed() -> None:
    """Under TORCHTPU_TEST_ENV=wheel, torchtpu must come from this Python's
    site-packages: a test run that picked up a checkout would prove nothing
    about the wheel."""
    spec = importlib.util.find_spec("torchtpu")
    origin = Path(spec.origin).resolve() if spec and spec.origin else None
    site = {Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib")}
    if origin is None or not any(origin.is_relative_to(s) for s in site):
        raise pytest.UsageError(f"TORCHTPU_TEST_ENV=wheel, but torchtpu is imported from {origin}, not from "
                                f"{' or '.join(map(str, site))}")


def pytest_configure(config: pytest.Config) -> None:
    if TEST_ENV == "wheel":
        _check_installed()
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
