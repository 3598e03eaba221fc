#!/bin/bash
# Issue 22's callback promise on the device's 16 cores: tests/stress/callbacks.c (built here as
# target/vsvk-sched/callbacks) keeps 16 requests in flight with a 0.3 ms completion callback, on R81,
# on our core and, where the kit carries it (old/libvsvk.so), on our core before the fix.
set -u
P=$KIT/extra/target/vsvk-sched
for core in "$CORE_REF" "$CORE_OURS" "$KIT/extra/old/libvsvk.so"; do
  [ -f "$core" ] || continue
  for t in 16 8; do
    printf '%-40s threads=%-3s ' "$(basename "$(dirname "$core")")/$(basename "$core")" $t
    timeout 120 "$P/callbacks" "$core" "$P/vsvknoise.so" overlap --threads $t --inflight 16 --frames 300 --sleep-us 300 2>&1 | grep -E '^(ok|error)' | head -1
  done
done
