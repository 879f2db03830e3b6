#!/usr/bin/env python3
"""Markdown tables (for docs/results.md) from bench.json.

Usage: python bench/report.py OUT/bench.json [--gobench OUT/gobench.json] > perf.md
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import math

LIBS = ["cubridge", "cupy", "torch", "numpy"]
OPS = ["add", "mul", "axpy", "sum", "dot", "sub", "div", "scale", "min", "max"]  # those measured are shown
DTYPES = ["float32", "float64"]


def fmt_n(n: int) -> str:
    e = math.log10(n)
    if e == int(e):
        return f"1e{int(e)}"
    f = math.floor(e)
    return f"{n / 10**f:g}e{f}"


def load(path):
    with open(path) as f:
        return json.load(f)


def index(doc):
    return {(r["kind"], r["op"], r["dtype"], r["n"], r["lib"]): r for r in doc["measurements"]}


def cell(r, key, fmt):
    if r is None:
        return "—"
    if key in r and r[key] is not None:
        return fmt.format(r[key]) + (" (!)" if "verify" in r else "")
    if "error" in r:
        return "error"
    return "skipped"


def markdown(doc, go=None) -> str:
    m = doc["meta"]
    idx = index(doc)
    libs = [l for l in LIBS if l in m.get("libs", {})]
    out = []
    p = out.append
    vers = ", ".join(f"{k} {v}" for k, v in m.get("libs", {}).items())
    p(f"Measured {m.get('date', '?')[:10]} on {m.get('device', '?')} ({vers}; Python {m.get('python', '?')}).")
    p(f"Timer: {m.get('timer', '?')}. Effective bandwidth counts bytes read plus written "
      "(add/sub/mul/div/axpy 3·n·itemsize, scale 2·n·itemsize, sum/min/max n·itemsize, "
      "dot 2·n·itemsize); medians.")
    def table(title, head, aligns):
        """Starts a section: a blank line, the title line, the header rows."""
        p("")
        p(title)
        p("")
        p("| " + " | ".join(head) + " |")
        p("|" + "".join(a + "|" for a in aligns))

    table("**Device arrays, effective GB/s (median)**", ["op", "dtype", "n"] + libs,
          ["---", "---", "---:"] + ["---:"] * len(libs))
    for dtype in DTYPES:
        for op in OPS:
            ns = sorted({k[3] for k in idx if k[0] == "kernel" and k[1] == op and k[2] == dtype})
            for n in ns:
                cells = [cell(idx.get(("kernel", op, dtype, n, l)), "gbps", "{:.0f}") for l in libs]
                p(f"| {op} | {dtype} | {fmt_n(n)} | " + " | ".join(cells) + " |")
    walls = [k for k in idx if k[0] == "wall"]
    if walls:
        table("**Wall time per call, small arrays (µs, median; sum/dot include the result as a Python number)**",
              ["call", "dtype", "n"] + libs, ["---", "---", "---:"] + ["---:"] * len(libs))
        seen = []
        for k in walls:
            if k[1:4] not in seen:
                seen.append(k[1:4])
        for op, dtype, n in seen:
            cells = [cell(idx.get(("wall", op, dtype, n, l)), "median_us", "{:.2f}") for l in libs]
            p(f"| {op} | {dtype} | {fmt_n(n)} | " + " | ".join(cells) + " |")
    hosts = sorted({k[3] for k in idx if k[0] == "host"})
    if hosts:
        for op, title in (("add", "a new host array out"), ("add_out", "out= a host array")):
            table(f"**Host (NumPy) arrays in, {title}: float32 add, ms per call (median)**",
                  ["n"] + libs, ["---:"] * (1 + len(libs)))
            for n in hosts:
                cells = [cell(idx.get(("host", op, "float32", n, l)), "median_ms", "{:.3f}") for l in libs]
                p(f"| {fmt_n(n)} | " + " | ".join(cells) + " |")
        p("")
    if doc.get("targets"):
        table("**Targets**", ["target", "status", "measured"], ["---"] * 3)
        for t in doc["targets"]:
            p(f"| {t['target']} | {t['status']} | {t.get('detail', '')} |")
    if go:
        table(f"**Go** (`bench/gobench`, {go.get('go_version', '?')}, backend {go.get('backend', '?')})",
              ["what", "op", "dtype", "n", "median", "GB/s"], ["---"] * 3 + ["---:"] * 3)
        for r in go.get("results", []):
            if r.get("error") or r.get("skipped"):
                med, bw = ("error" if r.get("error") else "skipped"), ""
            else:
                us = r.get("median_us", 0)
                med = f"{us / 1e3:.3f} ms" if us >= 1e3 else f"{us:.2f} µs"
                bw = f"{r['gbps']:.0f}" if r.get("gbps") else ""
            p(f"| {r['kind']} | {r['op']} | {r['dtype']} | {fmt_n(r['n'])} | {med} | {bw} |")
        for t in go.get("targets", []):
            p(f"- {t['target']}: **{t['status']}** ({t['detail']})")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description="markdown tables from bench.json")
    ap.add_argument("bench_json")
    ap.add_argument("--gobench", help="gobench's JSON (gobench -out FILE)")
    args = ap.parse_args(argv)
    go = load(args.gobench) if args.gobench else None
    print(markdown(load(args.bench_json), go), end="")


if __name__ == "__main__":
    main()
