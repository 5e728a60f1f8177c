"""``python -m torchtpu``: what this installation is, and whether it works.

Prints the versions (torchtpu, Python, torch), the engine library and its
build, how the ``torchtpu`` dynamo backend is found, where the ``tpu``
device's C++ extension was loaded from (prebuilt in the wheel, or built
here), the engine's devices, and where PJRT plugins are looked for. Nothing
is compiled: an extension that is not built yet is reported as such.
``--json`` prints the same as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Optional


def _install() -> dict[str, Any]:
    """Where the package comes from: pip's record of it (a wheel, an
    editable checkout) and the folder it is imported from."""
    import torchtpu
    from torchtpu import _lib

    d: dict[str, Any] = {"version": torchtpu.__version__, "path": str(Path(torchtpu.__file__).parent),
                         "checkout": str(_lib._repo_root()) if _lib._repo_root() else None}
    try:
        dist = metadata.distribution("torchtpu")
    except metadata.PackageNotFoundError:
        d["installed"] = None  # on sys.path (PYTHONPATH) without pip
        return d
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    d["installed"] = "editable" if direct.get("dir_info", {}).get("editable") else "wheel"
    d["requires"] = [r for r in dist.requires or [] if "extra ==" not in r]
    return d


def _backend() -> dict[str, Any]:
    """How ``backend="torchtpu"`` resolves: pip's entry point, and whether
    dynamo has it registered."""
    eps = [ep for ep in metadata.entry_points(group="torch_dynamo_backends") if ep.name == "torchtpu"]
    from torch._dynamo.backends.registry import list_backends

    return {"entry_point": eps[0].value if eps else None, "registered": "torchtpu" in list_backends(exclude_tags=())}


def _device() -> dict[str, Any]:
    """The tpu device: its extension and, when loaded, a one-op check."""
    import torch

    from torchtpu import device
    from torchtpu.device import _ext

    # is_available() would build an extension that is not built yet: not asked here
    d: dict[str, Any] = {"extension": _ext.describe(), "initialized": device.is_initialized(),
                         "error": device._state["error"]}
    if device.is_initialized():
        s = device.stats()
        d["backend"], d["mode"] = s["backend"], s["mode"]
        x = torch.arange(4.0, device="tpu")
        d["check"] = "ok" if (x + x).cpu().tolist() == [0.0, 2.0, 4.0, 6.0] else "wrong result"
    return d


def _plugins() -> dict[str, Any]:
    """Where the engine looks for PJRT plugins besides site-packages (libtpu,
    jax plugins): the environment variables and scripts/install-pjrt.sh's
    folder, with the plugin files it holds."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    folder = Path(os.environ.get("TORCHTPU_PJRT_DIR") or Path(cache) / "torchtpu" / "pjrt")
    found = sorted(str(p) for p in folder.glob("*/*.so")) if folder.is_dir() else []
    return {"PJRT_PLUGIN_LIBRARY_PATH": os.environ.get("PJRT_PLUGIN_LIBRARY_PATH"),
            "TPU_LIBRARY_PATH": os.environ.get("TPU_LIBRARY_PATH"), "folder": str(folder), "found": found}


def diagnose() -> dict[str, Any]:
    """Everything ``python -m torchtpu`` prints, as a dict."""
    import torch

    import torchtpu
    from torchtpu import _lib

    return {
        "torchtpu": _install(),
        "python": {"version": sys.version.split()[0], "executable": sys.executable},
        "torch": {"version": torch.__version__, "path": str(Path(torch.__file__).parent),
                  "cxx11_abi": bool(torch._C._GLIBCXX_USE_CXX11_ABI)},
        "engine": {"library": str(_lib.library_path()), **torchtpu.version()},
        "backend": _backend(),
        "device": _device(),
        "devices": torchtpu.devices(),
        "plugins": _plugins(),
    }


def _extension_line(e: dict[str, Any]) -> str:
    built_for = (e.get("prebuilt_for") or {}).get("torch")
    if e["origin"] == "prebuilt":
        return f"prebuilt for torch {built_for} ({e['prebuilt_for'].get('compiler')}), loaded from {e['path']}"
    if e["origin"]:
        return f"built here, loaded from {e['path']}"
    why = f" ({e['prebuilt_unused']})" if e.get("prebuilt_unused") else ""
    if e["compiler"]:
        return (f"not built yet{why}: the device's first use (torch.tpu.is_available(), which torch.compile asks, "
                f"or a tpu tensor) builds it with {e['compiler']} into {e['build_dir']}")
    return f"not built yet{why}, and no C++ compiler to build it: the tpu device is unavailable"


def _print(d: dict[str, Any]) -> None:
    t, dev, eng = d["torchtpu"], d["device"], d["engine"]
    how = {"wheel": "installed from a wheel", "editable": "installed editable", None: "not installed by pip"}
    where = f", source checkout {t['checkout']}" if t["checkout"] else ""
    print(f"torchtpu  {t['version']} at {t['path']} ({how[t['installed']]}{where})")
    if t.get("requires"):
        print(f"          requires {', '.join(t['requires'])}")
    print(f"python    {d['python']['version']} ({d['python']['executable']})")
    print(f"torch     {d['torch']['version']} at {d['torch']['path']}")
    print(f"engine    {eng['library']}: C ABI {eng.get('abi')}, {eng.get('go')}, module {eng.get('module')}")
    b = d["backend"]
    ep = f"entry point {b['entry_point']}" if b["entry_point"] else "no entry point (not installed by pip)"
    print(f"backend   torch.compile(backend=\"torchtpu\"): {ep}; registered with dynamo: {b['registered']}")
    print(f"tpu       extension {_extension_line(dev['extension'])}")
    if dev["initialized"]:
        print(f"          device ready: engine backend {dev['backend']}, mode {dev['mode']}; 1-op check {dev['check']}")
        print(f"          profiler {dev['extension'].get('profiler')}")
    elif dev["error"]:
        print(f"          unavailable: {dev['error']}")
    print("devices")
    for x in d["devices"]:
        state = "available" if x["available"] else f"unavailable: {x.get('error', '')}"
        print(f"  {x['name']:<9} {state}")
    p = d["plugins"]
    print("plugins   PJRT plugins are looked for in $PJRT_PLUGIN_LIBRARY_PATH "
          f"({p['PJRT_PLUGIN_LIBRARY_PATH'] or 'unset'}), $TPU_LIBRARY_PATH ({p['TPU_LIBRARY_PATH'] or 'unset'}),")
    print(f"          {p['folder']} (scripts/install-pjrt.sh; $TORCHTPU_PJRT_DIR), and site-packages (libtpu, jax plugins)")
    for f in p["found"]:
        print(f"          found {f}")


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m torchtpu", description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    d = diagnose()
    if args.json:
        print(json.dumps(d, indent=1))
    else:
        _print(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
