#!/usr/bin/env python3
"""Draws the results of bench/run.py (its JSON files) as one PNG: per case, vsvk's fps over R81's
(the median ratio, with the range the repetitions span), one panel per results file, grouped as the
runner groups them. A ratio above 1 means vsvk is faster.

usage: bench/plot.py OUT.png RESULTS.json [RESULTS.json ...]   (needs matplotlib)
"""
import json
import statistics
import sys


def ratios(res):
    rows = []
    for cid, e in res["cases"].items():
        r, o = e.get("R81") or [], e.get("vsvk") or []
        if not r or not o:
            continue
        med = statistics.median(o) / statistics.median(r)
        lo, hi = min(o) / max(r), max(o) / min(r)
        rows.append((cid, med, lo, hi))
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [json.load(open(p)) for p in sys.argv[2:]]
    panels = [(r, ratios(r)) for r in runs]
    height = max(len(rows) for _, rows in panels) * 0.22 + 1.5
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), height), squeeze=False)
    for ax, (res, rows) in zip(axes[0], panels):
        names = [c for c, *_ in rows]
        y = range(len(rows))
        med = [m for _, m, _, _ in rows]
        err = [[m - lo for _, m, lo, _ in rows], [hi - m for _, m, _, hi in rows]]
        colours = ["tab:green" if m >= 1 else "tab:red" for m in med]
        ax.barh(list(y), med, xerr=err, color=colours, alpha=0.8, error_kw={"elinewidth": 0.8, "capsize": 2})
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_yticks(list(y))
        ax.set_yticklabels(names, fontsize=7)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("vsvk fps / R81 fps (log scale; bars: median ratio, whiskers: range over repetitions)")
        m = res["machine"]
        where = (m.get("gpu") or "device") if res.get("device") else f"{m['cpus']} CPUs, lavapipe"
        # the repetitions that ran (a time budget can stop a run short of those asked for)
        ran = max((len(e.get("vsvk") or []) for e in res["cases"].values()), default=0)
        ax.set_title(f"{where}: {ran} of {res['reps']} repetitions, {res.get('started', '')}", fontsize=9)
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=110)
    print(f"wrote {sys.argv[1]}")


if __name__ == "__main__":
    main()
