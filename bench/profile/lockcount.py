#!/usr/bin/env python3
"""Per-activation costs from two callgrind runs of the same chain that differ only in frame count.

usage: lockcount.py SMALL.out LARGE.out ACTIVATIONS [TOP]

Both files must come from `valgrind --tool=callgrind --dump-instr=yes --compress-pos=no
--compress-strings=no`. ACTIVATIONS is (frames of LARGE - frames of SMALL) * filters in the chain;
the difference cancels start-up and tear-down. Prints, per filter activation: instructions,
locked (atomic read-modify-write) instructions executed, split by function, and calls to malloc
and friends, split by caller. Locked instructions are found by disassembling every object
(objdump) at the addresses callgrind recorded.
"""
import collections
import re
import subprocess
import sys


def load(path):
    """(object -> (address, function) -> Ir), (callee -> caller -> calls), total Ir"""
    cost = collections.defaultdict(collections.Counter)
    calls = collections.defaultdict(collections.Counter)
    ob = fn = cfn = None
    skip = False
    total = 0
    for line in open(path, errors="replace"):
        if line.startswith("ob="):
            ob = line[3:].strip()
        elif line.startswith("fn="):
            fn = line[3:].strip()
        elif line.startswith("cfn="):
            cfn = line[4:].strip()
        elif line.startswith("calls="):
            skip = True  # the next cost line is the call's inclusive cost
            calls[cfn][fn] += int(line[6:].split()[0])
        elif line.startswith("summary:"):
            total = int(line.split()[1])
        elif line.startswith("0x"):
            if skip:
                skip = False
                continue
            p = line.split()
            cost[ob][(int(p[0], 16), fn)] += int(p[2])
    return cost, calls, total


_locked = {}


def locked_addresses(ob):
    if ob not in _locked:
        s = set()
        try:
            txt = subprocess.run(["objdump", "-d", "--no-show-raw-insn", ob], capture_output=True, text=True).stdout
        except OSError:
            txt = ""
        for l in txt.splitlines():
            m = re.match(r"^\s+([0-9a-f]+):\s+(lock\b.*|xchg\s.*\(.*)$", l)
            if m:
                s.add(int(m.group(1), 16))
        _locked[ob] = s
    return _locked[ob]


def demangle(name):
    return subprocess.run(["c++filt"], input=name, capture_output=True, text=True).stdout.strip()


def main():
    small, large, acts = sys.argv[1], sys.argv[2], float(sys.argv[3])
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 15
    a_cost, a_calls, a_total = load(small)
    b_cost, b_calls, b_total = load(large)
    print(f"instructions per activation: {(b_total - a_total) / acts:.0f}")
    total = 0
    per = collections.Counter()
    for ob, sites in b_cost.items():
        locked = locked_addresses(ob)
        for (addr, fn), c in sites.items():
            if addr in locked:
                d = c - a_cost.get(ob, {}).get((addr, fn), 0)
                total += d
                per[(ob.split("/")[-1], fn)] += d
    print(f"locked instructions per activation: {total / acts:.1f}")
    for (ob, fn), c in per.most_common(top):
        if c / acts >= 0.05:
            print(f"  {c / acts:6.2f}  {ob}: {demangle(fn)[:110]}")
    allocs = re.compile(r"^(malloc|calloc|realloc|posix_memalign|aligned_alloc|free)$")
    for callee in sorted(b_calls):
        if not allocs.match(callee or ""):
            continue
        n = sum(b_calls[callee].values()) - sum(a_calls.get(callee, {}).values())
        if n / acts < 0.05:
            continue
        print(f"{callee} per activation: {n / acts:.2f}")
        for caller, c in b_calls[callee].most_common(6):
            d = (c - a_calls.get(callee, {}).get(caller, 0)) / acts
            if d >= 0.05:
                print(f"  {d:6.2f}  from {demangle(caller)[:100]}")


if __name__ == "__main__":
    main()
