#!/usr/bin/env bash
# Profiles one scheduler benchmark case on R81 and on vsvk, for finding where our time goes.
#
# usage: bench/profile.sh [FILTER [CHAIN [THREADS]]]     (default: Copy 50 1)
#
# Needs the programs bench/scheduler.sh builds (run it once, or CASES=... with REPS=1).
#  1. callgrind (instruction counts, independent of load and of thread placement): two runs per
#     core differing only in frame count, so start-up cancels; bench/profile/lockcount.py prints
#     instructions, locked (atomic) instructions and malloc calls per filter activation.
#  2. perf record -e cpu-clock, when perf works (a VM has no PMU, the software clock does):
#     bench/profile/atomics.py prints self time per function and the share at atomic instructions.
# Everything lands in target/vsvk-bench/profile/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
FILTER=${1:-Copy}
CHAIN=${2:-50}
THREADS=${3:-1}
REF=${VSVK_REF:-$HOME/.cache/vsvk-ref}
R81=$REF/x/vapoursynth/libvapoursynth.so.4
out=target/vsvk-bench
prof=$out/profile
mkdir -p "$prof"
for f in driver vsvknoise.so vsvkcheap.so libvsvk.so; do
    [ -f "$out/$f" ] || { echo "no $out/$f: run bench/scheduler.sh first" >&2; exit 1; }
done
export LD_LIBRARY_PATH=$REF/loader/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

steps() { # FRAMES
    local s="vsvkcheap.Source:@:width=64:height=64:format=$(((1 << 28) | (8 << 16))):length=$1"
    for ((i = 0; i < CHAIN; i++)); do s+=",vsvkcheap.$FILTER"; done
    echo "$s"
}
drive() { # LIB FRAMES [PREFIX...]
    local lib=$1 frames=$2
    shift 2
    "$@" "$out/driver" "$lib" --plugin "$out/vsvknoise.so" --plugin "$out/vsvkcheap.so" \
        --width 16 --height 16 --frames 1 --threads "$THREADS" "$(steps "$frames")"
}

small=200 large=1000
for who in R81 vsvk; do
    lib=$R81
    [ $who = vsvk ] && lib=$out/libvsvk.so
    echo "== $who: $FILTER x$CHAIN, $THREADS thread(s), Gray8 64x64"
    for frames in $small $large; do
        drive "$lib" $frames valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
            --callgrind-out-file="$prof/cg-$who-$FILTER-$CHAIN-$THREADS-$frames.out" >/dev/null 2>&1
    done
    python3 bench/profile/lockcount.py "$prof/cg-$who-$FILTER-$CHAIN-$THREADS-$small.out" \
        "$prof/cg-$who-$FILTER-$CHAIN-$THREADS-$large.out" $(((large - small) * CHAIN)) 25
    if perf record -e cpu-clock -F 20000 -o "$prof/perf-$who.data" true >/dev/null 2>&1; then
        drive "$lib" $((300000 / CHAIN)) perf record -e cpu-clock -F 20000 -g -o "$prof/perf-$who.data" 2>/dev/null
        suffix=libvapoursynth.so.4
        [ $who = vsvk ] && suffix=libvsvk.so
        python3 bench/profile/atomics.py "$prof/perf-$who.data" $suffix
    fi
    echo
done
