"""How the package is installed and found: ``python -m torchtpu``, which
build of the tpu device's extension is used, and that ``import torchtpu``
compiles nothing for a user who only calls torch.compile."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import torchtpu
from torchtpu.device import _ext

from conftest import TEST_ENV

PACKAGE = Path(torchtpu.__file__).resolve().parent


def _run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """A fresh interpreter that imports the same torchtpu as these tests."""
    full = {**os.environ, "PYTHONPATH": str(PACKAGE.parent), **env}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=full)


def test_python_m_torchtpu_diagnoses(tmp_path):
    out = _run(["-m", "torchtpu", "--json"], tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    d = json.loads(out.stdout)
    assert d["torch"]["version"] == torch.__version__
    assert d["engine"]["abi"] == 1 and Path(d["engine"]["library"]).is_file()
    assert {"name": "cpu", "available": True} in d["devices"]
    assert d["backend"]["registered"]
    ext = d["device"]["extension"]
    if TEST_ENV == "wheel":
        # The user's install: pip's wheel, the entry point, the prebuilt
        # extension loaded at import, and a tpu tensor that computes.
        assert d["torchtpu"]["installed"] == "wheel" and d["torchtpu"]["checkout"] is None, d["torchtpu"]
        assert f"torch=={_ext.torch_series(torch.__version__)}.*" in d["torchtpu"]["requires"]
        assert d["backend"]["entry_point"] == "torchtpu._dynamo:torchtpu_backend"
        assert ext["origin"] == "prebuilt" and ext["prebuilt_for"]["torch"] == torch.__version__, ext
        assert d["device"]["check"] == "ok", d["device"]
    else:
        assert d["torchtpu"]["checkout"] is not None
        assert ext["origin"] in (None, "built here"), ext
    text = _run(["-m", "torchtpu"], tmp_path)
    assert text.returncode == 0, text.stderr[-3000:]
    for word in ("torchtpu ", "torch ", "engine ", "tpu ", "devices", "plugins "):
        assert f"\n{word}" in "\n" + text.stdout, text.stdout


def _fake_package(tmp_path: Path, built_for: str) -> Path:
    """A copy of this torchtpu whose prebuilt extension claims to be for
    another torch (never loaded: the manifest rules it out)."""
    dst = tmp_path / "pkg" / "torchtpu"
    shutil.copytree(PACKAGE, dst, ignore=shutil.ignore_patterns("ext", "__pycache__", "*.so", "*.json"))
    (dst / "lib").mkdir(exist_ok=True)
    (dst / "lib" / "libtorchtpu.so").symlink_to(PACKAGE / "lib" / "libtorchtpu.so")
    (dst / "lib" / _ext.PREBUILT.name).write_bytes(b"")
    manifest = {"torch": built_for, "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI),
                "sources": _ext.sources_digest(), "compiler": "none"}
    (dst / "lib" / _ext.MANIFEST.name).write_text(json.dumps(manifest))
    return dst.parent


_COMPILE_ONLY = textwrap.dedent("""
    import sys, torch, torchtpu
    m = torch.nn.Linear(3, 2)
    x = torch.randn(4, 3)
    torch.testing.assert_close(torch.compile(m, backend="torchtpu")(x), m(x))
    assert not torchtpu.device.is_initialized() and not torchtpu.device.is_available()
    print("compiled")
    torchtpu.devices()  # the engine, without the device
    try:
        torch.ones(2, device="tpu")
    except RuntimeError as e:
        print("tpu:", e)
""")


def test_unmatched_torch_compiles_and_explains_the_device(tmp_path):
    """A wheel whose extension was built for another torch, on a machine
    without a C++ compiler: nothing is built, torch.compile works (dynamo
    asks whether the device is available: it is not, with a warning), and
    the first tpu tensor says why the device is unavailable and what to do."""
    pkg = _fake_package(tmp_path, "2.0.0")
    empty = tmp_path / "bin"
    empty.mkdir()
    out = _run(["-c", _COMPILE_ONLY], tmp_path, PYTHONPATH=str(pkg), PATH=str(empty), CXX="",
               TORCHTPU_EXT_DIR=str(tmp_path / "ext"))
    assert out.returncode == 0, out.stderr[-3000:]
    assert "compiled" in out.stdout and "building" not in out.stderr, out.stderr[-3000:]
    assert not (tmp_path / "ext").exists()
    assert out.stderr.count("the tpu device is unavailable") == 1, out.stderr[-3000:]  # one warning
    msg = out.stdout.split("tpu: ", 1)[1]
    assert f"is for torch 2.0.0, this is torch {torch.__version__}" in msg, msg
    assert "no C++ compiler was found" in msg and "does not need it" in msg, msg


def test_prebuilt_is_chosen_by_torch_series_abi_and_sources(tmp_path, monkeypatch):
    so, manifest = tmp_path / "torchtpu_device.so", tmp_path / "torchtpu_device.json"
    monkeypatch.setattr(_ext, "PREBUILT", so)
    monkeypatch.setattr(_ext, "MANIFEST", manifest)
    assert _ext.prebuilt()[0] is None and "no prebuilt" in _ext.prebuilt()[1]
    so.write_bytes(b"")
    good = {"torch": torch.__version__.split("+")[0].rsplit(".", 1)[0] + ".99+other",
            "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI), "sources": _ext.sources_digest()}
    manifest.write_text(json.dumps(good))
    assert _ext.prebuilt() == (so, "")  # another patch release and build of the same torch
    for key, value, why in (("torch", "1.13.1", "is for torch 1.13.1"),
                            ("cxx11_abi", not good["cxx11_abi"], "another C++ ABI"),
                            ("sources", "0" * 16, "other sources")):
        manifest.write_text(json.dumps({**good, key: value}))
        path, reason = _ext.prebuilt()
        assert path is None and why in reason, reason
