"""The OpInfo-on-tpu table (docs/device.md's section) from sweep.py's JSON lines.

    python tools/opinfo_device/table.py RESULTS.jsonl [--header "run: ..."] > table.md

Counts are over the samples PyTorch's CPU runs (a sample CPU rejects is not
counted). "engine" samples ran every op on torchtpu's engine; "fallback"
samples were right but some op ran on PyTorch's CPU kernels (the device's
fallback policy, counted and warned). Every (OpInfo, dtype) with a wrong or
failed sample is listed with the first cause seen.
"""

from __future__ import annotations

import argparse
import collections
import json
import re


def cause(first: str) -> str:
    s = first.replace("|", "\\|").replace("\n", " ")
    s = re.sub(r"\s+", " ", s)
    return s[:220]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--header", default="")
    args = ap.parse_args()
    recs = [json.loads(line) for line in open(args.results)]
    tot = collections.Counter()
    by_dt: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    ops = set()
    crashes = []
    for r in recs:
        ops.add(r["op"])
        if r.get("crash"):
            crashes.append(r)
        for k in ("pass", "pass_fallback", "mismatch", "error"):
            tot[k] += r.get(k, 0)
            by_dt[r["dtype"]][k] += r.get(k, 0)
    n = sum(tot[k] for k in ("pass", "pass_fallback", "mismatch", "error"))
    out = []
    if args.header:
        out.append(args.header + "\n")
    pct = lambda a, b: f"{100.0 * a / b:.1f}%" if b else "-"  # noqa: E731
    out.append(f"{len(ops)} OpInfos, {len(recs)} (OpInfo, dtype) pairs, {n} samples that PyTorch's CPU runs.\n")
    out.append("| | samples | share |")
    out.append("|---|---:|---:|")
    out.append(f"| right, engine only | {tot['pass']} | {pct(tot['pass'], n)} |")
    out.append(f"| right, some op on the CPU fallback | {tot['pass_fallback']} | {pct(tot['pass_fallback'], n)} |")
    out.append(f"| **right (either)** | **{tot['pass'] + tot['pass_fallback']}** | "
               f"**{pct(tot['pass'] + tot['pass_fallback'], n)}** |")
    out.append(f"| wrong values, dtype or shape | {tot['mismatch']} | {pct(tot['mismatch'], n)} |")
    out.append(f"| error on tpu (not on CPU) | {tot['error']} | {pct(tot['error'], n)} |")
    out.append(f"| (OpInfo, dtype) pairs whose process crashed | {len(crashes)} | |")
    out.append("")
    out.append("By dtype:\n")
    out.append("| dtype | samples | engine only | right (either) | wrong | error |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for dt in sorted(by_dt):
        c = by_dt[dt]
        m = sum(c[k] for k in ("pass", "pass_fallback", "mismatch", "error"))
        out.append(f"| {dt} | {m} | {pct(c['pass'], m)} | {pct(c['pass'] + c['pass_fallback'], m)} | "
                   f"{c['mismatch']} | {c['error']} |")
    out.append("")
    # ops on the CPU fallback, by how many samples needed them
    fb = collections.Counter()
    for r in recs:
        for op in r.get("fallback_ops", []):
            fb[op] += r.get("pass_fallback", 0) + r.get("mismatch", 0) + r.get("error", 0)
    if fb:
        out.append("Ops that ran on the CPU fallback (samples of the OpInfos that used them):\n")
        out.append(", ".join(f"`{op}` ({k})" for op, k in fb.most_common()))
        out.append("")
    out.append("Every (OpInfo, dtype) with a wrong or failed sample, and the first cause:\n")
    out.append("| OpInfo | dtype | wrong | error | of | first cause |")
    out.append("|---|---|---:|---:|---:|---|")
    for r in sorted(recs, key=lambda r: (r["op"], r["dtype"])):
        bad = r.get("mismatch", 0) + r.get("error", 0)
        if not bad and not r.get("crash"):
            continue
        m = sum(r.get(k, 0) for k in ("pass", "pass_fallback", "mismatch", "error"))
        what = cause(r.get("first", "")) if not r.get("crash") else f"process crashed (exit {r['crash']})"
        out.append(f"| {r['op']} | {r['dtype']} | {r.get('mismatch', 0)} | {r.get('error', 0)} | {m} | {what} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
