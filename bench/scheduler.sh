#!/usr/bin/env bash
# Scheduler benchmark: vsvk against the reference core (VapourSynth R81) on host-bound work, long
# chains of filters that cost next to nothing (bench/plugins/vsvkcheap.c) on small frames.
#
# usage: bench/scheduler.sh [REPS]        (default 5; or REPS=N in the environment)
#
# Every case runs REPS times on each core, the two cores alternating (R81 first on odd repetitions,
# vsvk first on even ones) so that drift in the machine's load hits both alike. The table gives the
# median frames per second of each core and vsvk/R81 (above 1: vsvk is faster). The fingerprints of
# the two cores must agree; a case where they do not is marked.
#
# Environment:
#   VSVK_REF      the reference folder (default ~/.cache/vsvk-ref, as scripts/setup.sh lays it out)
#   VSVK_CORE     our core library (default: build it with cargo and use target/release/libvsvk.so)
#   NO_BUILD=1    do not run cargo (use VSVK_CORE or target/release/libvsvk.so as it is)
#   NO_CC=1       do not compile the C programs: use those already in target/vsvk-bench/
#   CASES         a subset of the cases, e.g. "Copy:Gray8:64:100:1 Temporal:Gray8:64:50:2"
#                 (FILTER:FORMAT:SIZE:CHAIN:THREADS); THREADS "1p" is one thread with the whole
#                 process pinned to one CPU (taskset), which takes the kernel's thread placement out
#                 of the measurement: the placement makes unpinned runs bimodal on this VM (see
#                 docs/BENCHMARKS.md)
#   WORK          filter activations per run (default 300000): frames = WORK / CHAIN
#   QUIET         before every pair of runs, wait (at most QUIET_WAIT seconds, default 900) until
#                 the machine is at least QUIET percent idle over half a second (default 85; 0: never
#                 wait), so that other work on a shared machine does not land in the numbers
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
REPS=${1:-${REPS:-5}}
REF=${VSVK_REF:-$HOME/.cache/vsvk-ref}
R81=$REF/x/vapoursynth/libvapoursynth.so.4
WORK=${WORK:-300000}
out=target/vsvk-bench
mkdir -p "$out"

[ -f "$R81" ] || { echo "no reference core at $R81: run scripts/setup.sh first" >&2; exit 1; }

if [ -z "${VSVK_CORE:-}" ]; then
    if [ -z "${NO_BUILD:-}" ]; then cargo build --release -p vsvk-core >&2; fi
    VSVK_CORE=target/release/libvsvk.so
fi
# a private copy, so that a concurrent cargo build cannot swap the library during the runs
cp "$VSVK_CORE" "$out/libvsvk.so"
OURS=$out/libvsvk.so

cflags=(-O2 -Wall -Wextra -Werror -Iinclude)
if [ -z "${NO_CC:-}" ]; then
    gcc "${cflags[@]}" -shared -fPIC bench/plugins/vsvkcheap.c -o "$out/vsvkcheap.so"
    gcc "${cflags[@]}" -shared -fPIC tests/plugins/vsvknoise.c -o "$out/vsvknoise.so" # the driver wants it
    gcc "${cflags[@]}" tests/oracle/driver.c -ldl -lpthread -o "$out/driver"
fi

export LD_LIBRARY_PATH=$REF/loader/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

format_id() { # VS_MAKE_VIDEO_ID
    case $1 in
        Gray8) echo $(((1 << 28) | (0 << 24) | (8 << 16))) ;;
        YUV420P8) echo $(((3 << 28) | (0 << 24) | (8 << 16) | (1 << 8) | 1)) ;;
        YUV444P8) echo $(((3 << 28) | (0 << 24) | (8 << 16))) ;;
        *) echo "unknown format $1" >&2; exit 1 ;;
    esac
}

if [ -z "${CASES:-}" ]; then
    CASES=""
    for spec in Copy:Gray8:64 Copy:YUV420P8:32 Pass:Gray8:64 Temporal:Gray8:64; do
        for chain in 10 50 100; do
            for threads in 1 2 1p; do CASES+="$spec:$chain:$threads "; done
        done
    done
fi

busy_ticks() { local s; s=($(head -1 /proc/stat)); echo $((s[1] + s[2] + s[3] + s[6] + s[7] + s[8])); }
HZ=$(getconf CLK_TCK)

# one run: prints "HASH FPS OTHERS", OTHERS the CPU seconds that other processes used meanwhile
run() { # LIB FILTER FORMAT SIZE CHAIN THREADS
    local lib=$1 filter=$2 format=$3 size=$4 chain=$5 threads=$6
    local frames=$((WORK / chain))
    local steps="vsvkcheap.Source:@:width=$size:height=$size:format=$(format_id "$format"):length=$frames"
    for ((i = 0; i < chain; i++)); do steps+=",vsvkcheap.$filter"; done
    local line t0 t1 times TIMEFORMAT='%3R %3U %3S' pin=()
    if [ "${threads%p}" != "$threads" ]; then
        threads=${threads%p}
        pin=(taskset -c "$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')")
    fi
    t0=$(busy_ticks)
    times=$( { time "${pin[@]}" "$out/driver" "$lib" --plugin "$out/vsvknoise.so" --plugin "$out/vsvkcheap.so" \
        --width 16 --height 16 --frames 1 --threads "$threads" "$steps" >"$out/line" 2>/dev/null; } 2>&1) || true
    t1=$(busy_ticks)
    line=$(cat "$out/line")
    case $line in
        ok*) ;;
        *) echo "error: $lib $filter $format $size $chain $threads: $line" >&2; echo "error 0 0"; return ;;
    esac
    local hash=${line#*hash=} fps=${line#*fps=}
    local others
    others=$(awk -v t="$((t1 - t0))" -v hz="$HZ" -v tm="$times" 'BEGIN { split(tm, x, " "); o = t / hz - x[2] - x[3]; printf "%.3f", (o > 0 ? o : 0) }')
    echo "${hash%% *} $fps $others"
}

# a run that other processes disturbed (they used more than 10% of one CPU, and over 0.05 s, while
# it ran) is repeated, up to RETRIES times (default 4)
RETRIES=${RETRIES:-4}
disturbed=0
clean_run() {
    local try h f o
    for ((try = 0; ; try++)); do
        read -r h f o < <(run "$@")
        if awk -v o="$o" -v f="$f" -v n=$((WORK / $5)) 'BEGIN { exit !(f > 0 && o > 0.05 && o > 0.1 * n / f) }'; then
            if ((try < RETRIES)); then sleep 1; continue; fi
            disturbed=$((disturbed + 1))
        fi
        echo "$h $f $o"; return
    done
}

QUIET=${QUIET:-85}
QUIET_WAIT=${QUIET_WAIT:-900}
idle_percent() { # over half a second, from /proc/stat
    local a b
    a=($(head -1 /proc/stat)); sleep 0.5; b=($(head -1 /proc/stat))
    local total=0 i
    for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
    echo $(((100 * (b[4] - a[4] + b[5] - a[5])) / (total > 0 ? total : 1)))
}
noisy=0
wait_quiet() {
    [ "$QUIET" -gt 0 ] || return 0
    local start=$SECONDS idle
    while idle=$(idle_percent); [ "$idle" -lt "$QUIET" ]; do
        if ((SECONDS - start >= QUIET_WAIT)); then
            echo "  machine still busy (${idle}% idle) after ${QUIET_WAIT}s: running anyway" >&2
            noisy=$((noisy + 1)); return 0
        fi
        sleep 2
    done
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A ref_fps our_fps ref_hash our_hash
raw=$out/scheduler-raw.txt # every sample, for a look at the spread
: >"$raw"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((rep = 1; rep <= REPS; rep++)); do
    echo "repetition $rep/$REPS" >&2
    for c in $CASES; do
        IFS=: read -r filter format size chain threads <<<"$c"
        if ((rep % 2)); then order="ref ours"; else order="ours ref"; fi
        wait_quiet
        for who in $order; do
            if [ $who = ref ]; then
                read -r h f o < <(clean_run "$R81" "$filter" "$format" "$size" "$chain" "$threads")
                ref_fps[$c]+="$f "; ref_hash[$c]=$h; echo "$c R81 $f others=$o" >>"$raw"
            else
                read -r h f o < <(clean_run "$OURS" "$filter" "$format" "$size" "$chain" "$threads")
                our_fps[$c]+="$f "; our_hash[$c]=$h; echo "$c vsvk $f others=$o" >>"$raw"
            fi
        done
    done
done

echo "| filter | format | size | chain | threads | frames | R81 fps | vsvk fps | vsvk/R81 | best R81 | best vsvk | best vsvk/R81 |"
echo "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for c in $CASES; do
    IFS=: read -r filter format size chain threads <<<"$c"
    r=$(tr ' ' '\n' <<<"${ref_fps[$c]}" | grep . | median)
    o=$(tr ' ' '\n' <<<"${our_fps[$c]}" | grep . | median)
    rb=$(tr ' ' '\n' <<<"${ref_fps[$c]}" | grep . | sort -g | tail -1)
    ob=$(tr ' ' '\n' <<<"${our_fps[$c]}" | grep . | sort -g | tail -1)
    ratio=$(awk -v o="$o" -v r="$r" 'BEGIN { if (r > 0) printf "%.2f", o / r; else print "-" }')
    ratio_best=$(awk -v o="$ob" -v r="$rb" 'BEGIN { if (r > 0) printf "%.2f", o / r; else print "-" }')
    note=""
    [ "${ref_hash[$c]}" = "${our_hash[$c]}" ] || note=" (fingerprints differ!)"
    printf '| %s | %s | %sx%s | %s | %s | %s | %.0f | %.0f | %s%s | %.0f | %.0f | %s |\n' \
        "$filter" "$format" "$size" "$size" "$chain" "$threads" $((WORK / chain)) "$r" "$o" "$ratio" "$note" "$rb" "$ob" "$ratio_best"
done
echo
echo "$REPS repetitions per core and case, medians; $(nproc) CPUs; load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg); every sample in $raw"
echo "pairs started on a busy machine after waiting ${QUIET_WAIT}s (QUIET=$QUIET): $noisy; runs kept although other processes disturbed them $((RETRIES + 1)) times: $disturbed"
