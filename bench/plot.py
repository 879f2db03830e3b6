#!/usr/bin/env python3
"""bench.png from bench.json: effective bandwidth vs n (log x), one line per library,
one panel per op and dtype. Needs matplotlib (`pip install matplotlib`); run it wherever
that is installed, e.g. on the build machine with the bench.json the GPU host wrote.

Usage: python bench/plot.py OUT/bench.json [-o bench.png] [--markdown]
--markdown also prints the docs/results.md tables (the same as bench/report.py).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (bench/report.py)

STYLE = {
    "cubridge": dict(color="tab:red", marker="o", lw=2.2),
    "cupy": dict(color="tab:blue", marker="s"),
    "torch": dict(color="tab:orange", marker="^"),
    "numpy": dict(color="tab:gray", marker="x", ls="--"),
}


def plot(doc, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in doc["measurements"] if r["kind"] == "kernel" and r.get("gbps")]
    ops = [op for op in report.OPS if any(r["op"] == op for r in rows)]
    fig, axes = plt.subplots(len(report.DTYPES), len(ops), figsize=(4.2 * len(ops), 3.6 * len(report.DTYPES)),
                             sharex=True, squeeze=False)
    for i, dtype in enumerate(report.DTYPES):
        for j, op in enumerate(ops):
            ax = axes[i][j]
            for lib in report.LIBS:
                pts = sorted((r["n"], r["gbps"]) for r in rows if r["op"] == op and r["dtype"] == dtype and r["lib"] == lib)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], label=lib, **STYLE.get(lib, {}))
            ax.set_xscale("log")
            ax.set_title(f"{op} {dtype}")
            ax.grid(True, which="both", alpha=0.3)
            if j == 0:
                ax.set_ylabel("effective GB/s")
            if i == len(report.DTYPES) - 1:
                ax.set_xlabel("n (elements)")
            ax.set_ylim(bottom=0)
    handles, labels = [], []
    for ax in axes.flat:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    m = doc.get("meta", {})
    fig.suptitle(f"cubridge vs CuPy vs torch vs NumPy — {m.get('device', '?')} — {m.get('date', '')[:10]}")
    if handles:
        fig.legend(handles, labels, loc="upper right", ncol=len(labels))
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=110)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description="plot bench.json")
    ap.add_argument("bench_json")
    ap.add_argument("-o", "--output", help="PNG path (default: bench.png next to bench.json)")
    ap.add_argument("--markdown", action="store_true", help="also print the docs/results.md tables")
    args = ap.parse_args(argv)
    doc = report.load(args.bench_json)
    out = args.output or os.path.join(os.path.dirname(os.path.abspath(args.bench_json)), "bench.png")
    print(f"wrote {plot(doc, out)}", file=sys.stderr)
    if args.markdown:
        print(report.markdown(doc), end="")


if __name__ == "__main__":
    main()
