#!/bin/bash
# Where our core's host time goes on the bench rows $STATS_CASES (bench/run.py patterns): one run
# of our core a case, $STATS_FRAMES frames after the warm-up (default 400), with VSVK_STATS=1, under
# each of $STATS_ENVS (space separated settings, commas joining several; X=1 for the default).
set -u
set -f  # the cases are fnmatch patterns, not paths
for env in ${STATS_ENVS:-X=1}; do
  echo "=== $env"
  env ${env//,/ } python3 bench/run.py --device --stats "${STATS_FRAMES:-400}" --cases "${STATS_CASES:-gpu/bm3d-1080p}" --timeout 60 2>&1
done
