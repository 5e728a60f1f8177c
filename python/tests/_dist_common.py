"""What every module of a distributed-test rank shares (_dist_worker.py and
the checks it runs): the device, the step count, the rank and world size
from torchrun's environment, and the report each rank writes."""

from __future__ import annotations

import datetime
import json
import os
from typing import Any

import torch

import torchtpu

STEPS = 5
DEV = "tpu"
TIMEOUT = datetime.timedelta(seconds=float(os.environ.get("TT_DIST_TIMEOUT", "60")))


def rank() -> int:
    return int(os.environ["RANK"])


def world() -> int:
    return int(os.environ["WORLD_SIZE"])


def report(result: dict[str, Any]) -> None:
    result.update(rank=rank(), world=world(), torchtpu=torchtpu.__file__, torch=torch.__version__,
                  backend=torch.tpu.stats()["backend"] if torch.tpu.is_initialized() else None,
                  cpu_fallbacks=sorted(f["op"] for f in torch.tpu.fallbacks()) if torch.tpu.is_initialized() else [])
    path = os.path.join(os.environ["TT_DIST_OUT"], f"rank{rank()}.json")
    with open(path + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(path + ".tmp", path)
