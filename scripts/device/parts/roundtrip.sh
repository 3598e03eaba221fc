#!/bin/bash
# The bench rows $RT_CASES (bench/run.py patterns; default the 2160p 16-bit round trip and its two
# halves) under each of $RT_ENVS (space separated settings for our core, commas joining several;
# X=1 for the default; RT_CASES=PATTERN in an entry for its own rows), both cores alternating in
# each bench/run.py call (RT_SECONDS a run, default 0.5), then the PCIe limits in the same call
# (bench/pcie.py: each direction alone and both at once on two streams).
set -u
set -f  # the entries carry fnmatch patterns, not paths
out=${1:-/tmp}  # the part's folder: each setting's samples as rt-N.json
i=0
for env in ${RT_ENVS:-X=1 VSVK_PINNED_FRAMES=1}; do
  echo "--- $env"
  i=$((i + 1))
  # an entry's own RT_CASES=PATTERN (one pattern) replaces $RT_CASES for it
  cases=${RT_CASES:-bw/*2160p-16}
  for kv in ${env//,/ }; do
    case $kv in RT_CASES=*) cases=${kv#RT_CASES=} ;; esac
  done
  env ${env//,/ } python3 bench/run.py --device --cases "$cases" --reps "${RT_REPS:-3}" \
    --seconds "${RT_SECONDS:-0.5}" --timeout 60 --out "$out/rt-$i.json" 2>&1 | grep "^| [a-z]*/"
done
echo "--- PCIe (bench/pcie.py)"
python3 bench/pcie.py --reps 5 2>&1 | tail -4
