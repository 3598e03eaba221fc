#!/usr/bin/env python3
"""Where sampled time goes, with the share spent on atomic instructions, from a `perf record`.

usage: atomics.py PERF.data [DSO_SUFFIX]

Works with the software clock (perf record -e cpu-clock), which is all a VM without a PMU offers.
A sample counts as "at an atomic" when the sampled instruction or the one before it is locked
(lock prefix or xchg with memory): the interrupt is taken right after the slow instruction. With
DSO_SUFFIX (e.g. libvsvk.so) it also lists that object's functions by self time and its hottest
atomic sites with their inline chain (addr2line), which names the Mutex or Arc behind each.
"""
import collections
import re
import subprocess
import sys


def main():
    data = sys.argv[1]
    want = sys.argv[2] if len(sys.argv) > 2 else None
    out = subprocess.run(["perf", "script", "-i", data, "-G", "-F", "ip,sym,symoff,dso", "--no-demangle"],
                         capture_output=True, text=True).stdout
    samples = []
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+)\s+(.+)\+0x([0-9a-f]+)\s+\((.+)\)\s*$", line)
        if m:
            samples.append((m.group(2), int(m.group(3), 16), m.group(4)))
        elif line.strip():
            samples.append((None, 0, line.strip()))
    dis = {}

    def load(dso):
        if dso not in dis:
            res = {}
            try:
                txt = subprocess.run(["objdump", "-d", "--no-show-raw-insn", dso], capture_output=True, text=True).stdout
            except OSError:
                txt = ""
            sym = prev = None
            for l in txt.splitlines():
                m = re.match(r"^([0-9a-f]+) <(.+)>:$", l)
                if m:
                    sym = m.group(2)
                    res.setdefault(sym, {"base": int(m.group(1), 16), "ins": {}})
                    prev = None
                    continue
                m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", l)
                if m and sym:
                    res[sym]["ins"][int(m.group(1), 16)] = (m.group(2), prev)
                    prev = m.group(2)
            dis[dso] = res
        return dis[dso]

    def locked(i):
        return i is not None and bool(i.startswith("lock") or re.match(r"xchg\s+\S+,\(", i) or re.match(r"xchg\s+\(", i))

    def address(sym, off, dso):
        d = load(dso).get(sym)
        return (d["base"] + off, d) if d else (None, None)

    tot, atom = collections.Counter(), collections.Counter()
    per_sym, per_addr, symtot = collections.Counter(), collections.Counter(), collections.Counter()
    for sym, off, dso in samples:
        key = dso.split("/")[-1] if sym else "other"
        tot[key] += 1
        if not sym or dso.startswith("["):
            continue
        a, d = address(sym, off, dso)
        is_atomic = False
        if d:
            e = d["ins"].get(a)
            is_atomic = bool(e and (locked(e[0]) or locked(e[1])))
        if is_atomic:
            atom[key] += 1
        if want and dso.endswith(want):
            symtot[sym] += 1
            if is_atomic:
                per_sym[sym] += 1
                per_addr[(dso, a)] += 1
    n = sum(tot.values()) or 1
    print(f"samples {n}; at atomic instructions: {100 * sum(atom.values()) / n:.1f}%")
    for k, v in tot.most_common(8):
        print(f"  {k:28s} {100 * v / n:5.1f}% of time, at atomics {100 * atom[k] / n:5.1f}%")
    if not want:
        return
    dem = lambda s: subprocess.run(["c++filt"], input=s, capture_output=True, text=True).stdout.strip()
    print(f"{want} functions (self time, of which at atomics):")
    for s, v in symtot.most_common(20):
        print(f"  {100 * v / n:5.1f}% {100 * per_sym[s] / n:5.1f}%  {dem(s)[:100]}")
    print("hottest atomic sites (innermost first):")
    for (dso, a), v in per_addr.most_common(20):
        r = subprocess.run(["addr2line", "-i", "-f", "-C", "-e", dso, hex(a)], capture_output=True, text=True).stdout.split("\n")
        pairs = [(r[i], r[i + 1]) for i in range(0, len(r) - 1, 2)]
        chain = " <- ".join(f"{f.split('::')[-1]}@{l.split('/')[-1]}" for f, l in pairs[:6])
        print(f"  {100 * v / n:5.2f}% {chain}")


if __name__ == "__main__":
    main()
