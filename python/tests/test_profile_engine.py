"""torchtpu.profile_engine: the engine's Go CPU profile of a compiled model,
as a pprof file that Go's pprof reads, and clear errors."""

from __future__ import annotations

import re
import shutil
import subprocess
import time

import pytest
import torch

import torchtpu
from torchtpu import _lib


def test_profile_of_a_compiled_model(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.GELU(), torch.nn.Linear(256, 64)).eval()
    f = torch.compile(model, backend="torchtpu")
    x = torch.randn(32, 128)
    path = tmp_path / "engine.pprof"
    with torch.no_grad():
        f(x)  # compile outside the profile
        with torchtpu.profile_engine(path) as p:
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < 0.5:
                out = f(x)
    assert p == str(path)
    torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-4)
    data = path.read_bytes()
    assert data[:2] == b"\x1f\x8b", "a pprof file is gzip'd"
    assert len(data) > 100
    go = shutil.which("go")
    if go is None:
        return
    raw = subprocess.run([go, "tool", "pprof", "-raw", str(path)], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    body = raw.split("Samples:", 1)[1].split("Locations", 1)[0]
    samples = sum(int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s+\d+:", body, re.M))
    assert samples > 0, raw[:2000]


def test_profile_errors(tmp_path):
    with torchtpu.profile_engine(tmp_path / "outer.pprof"):
        with pytest.raises(torchtpu.TorchTPUError, match="already running into .*outer.pprof"):
            with torchtpu.profile_engine(tmp_path / "inner.pprof"):
                pass
    assert (tmp_path / "outer.pprof").read_bytes()[:2] == b"\x1f\x8b"
    missing = tmp_path / "no-such-dir" / "p.pprof"
    with pytest.raises(torchtpu.TorchTPUError, match=re.escape(str(missing))):
        with torchtpu.profile_engine(missing):
            pass
    with pytest.raises(torchtpu.TorchTPUError, match="no CPU profile is running"):
        _lib.cpu_profile_stop()
