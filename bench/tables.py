#!/usr/bin/env python3
"""Prints the Markdown tables of docs/BENCHMARKS.md from one bench/run.py results file: the median
of every row's vsvk/R81 with the rows below 1.0, the GPU chains (1080p beside 2160p), the
transfers, and the host chains. Figures are medians over the repetitions, R81 / vsvk.

usage: bench/tables.py RESULTS.json
"""
import json
import statistics
import sys


def med(xs):
    return statistics.median(xs) if xs else None


def fps(x):
    return f"{x:,.0f}"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    res = json.load(open(sys.argv[1]))
    cases = res["cases"]
    ratio = {}
    for cid, e in cases.items():
        if e.get("R81") and e.get("vsvk"):
            ratio[cid] = med(e["vsvk"]) / med(e["R81"])
    reps = max((len(e.get("vsvk") or []) for e in cases.values()), default=0)
    partial = " (a partial run: stopped before its last repetition)" if res.get("partial") else ""
    print(f"{len(ratio)} rows, {reps} repetitions{partial}; median vsvk/R81 {med(list(ratio.values())):.2f}")
    low = sorted((r, c) for c, r in ratio.items() if r < 1.0)
    print("below 1.0: " + (", ".join(f"{c} {r:.2f}" for r, c in low) or "none"))

    def pair(cid):
        e = cases.get(cid)
        if cid not in ratio:
            return "| | "
        return f"{fps(med(e['R81']))} / {fps(med(e['vsvk']))} | {ratio[cid]:.2f}"

    print("\n| chain | 1080p | vsvk/R81 | 2160p | vsvk/R81 |\n|---|--:|--:|--:|--:|")
    seen = set()
    for cid, e in cases.items():
        if not cid.startswith(("gpu/", "chain/")) or not cid.endswith("-1080p"):
            continue
        base = cid[: -len("-1080p")]
        if base in seen:
            continue
        seen.add(base)
        what = e["what"].rsplit(" 1080p", 1)[0]
        print(f"| {what} | {pair(base + '-1080p')} | {pair(base + '-2160p')} |")

    def gbps(cid, core):
        e = cases.get(cid)
        if not e or not e.get(core):
            return None
        return med(e[core]) * e["bytes_per_frame"] / 1e9

    print("\n| YUV420 | upload GB/s | vsvk/R81 | download GB/s | vsvk/R81 | round trip fps | vsvk/R81 |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for size, bits in (("1080p", 8), ("1080p", 16), ("2160p", 8), ("2160p", 16)):
        cols = []
        for kind in ("up", "down"):
            cid = f"bw/{kind}-{size}-{bits}"
            r, v = gbps(cid, "R81"), gbps(cid, "vsvk")
            cols.append(f"{r:.1f} / {v:.1f} | {ratio[cid]:.2f}" if r and v else "| ")
        cols.append(pair(f"bw/updown-{size}-{bits}"))
        print(f"| {size} {bits} bit | " + " | ".join(cols) + " |")
    up, rt = "bw/up-2160p-16-fresh", "bw/updown-2160p-16-fresh"
    if up in ratio:
        print(f"| 2160p 16 bit, a new frame each | {gbps(up, 'R81'):.1f} / {gbps(up, 'vsvk'):.1f} | {ratio[up]:.2f} | | | {pair(rt)} |")
    rt16 = "bw/updown-2160p-16"
    if rt16 in cases and cases[rt16].get("vsvk"):
        each = gbps(rt16, "vsvk")
        print(f"\n2160p 16-bit round trip: vsvk {fps(med(cases[rt16]['vsvk']))} fps ({each:.1f} GB/s each way), "
              f"samples {', '.join(fps(x) for x in cases[rt16]['vsvk'])}")

    print("\n| chain | 1 thread | vsvk/R81 | all threads | vsvk/R81 |\n|---|--:|--:|--:|--:|")
    for cid, e in cases.items():
        if cid.startswith("host/") and cid.endswith("-t1"):
            base = cid[: -len("-t1")]
            what = e["what"].split(",")[0]
            print(f"| {what} | {pair(cid)} | {pair(base + '-tall')} |")


if __name__ == "__main__":
    main()
