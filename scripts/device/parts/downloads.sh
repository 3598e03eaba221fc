#!/bin/bash
# Issue 23 on the device: where the cheap 1080p GPU chains lose to R81 (each small frame's
# download is a submission of its own on one copy queue). The same cases under each download
# setting, both cores in each run (R81 ignores the VSVK_ variables):
#   default; VSVK_DOWNLOAD_RING=32 (more downloads in flight per queue);
#   VSVK_DOWNLOAD_COMPUTE_QUEUES=3 (downloads spread over three more queues of the compute family);
#   both; both with VSVK_PINNED_FRAMES=1 (uploads by the copy engine too).
set -u
CASES=${DL_CASES:-bw/updown-1080p-8,bw/updown-2160p-16,gpu/vk-expr-1080p,gpu/vk-boxblur-1080p,gpu/bm3d-1080p,gpu/gaussblur-1080p}
# DL_SETTINGS: the settings to compare instead of the list below, one per line ('' = default).
i=0
while read -r setting; do
  i=$((i+1))
  echo "--- setting $i: ${setting:-default}"
  env $setting python3 bench/run.py --device --cases "$CASES" --reps "${DL_REPS:-2}" --seconds "${DL_SECONDS:-0.6}" \
    --budget "${DL_BUDGET:-60}" --timeout 60 --out "$1/setting$i.json" 2>&1 | grep -E '^\| (bw|gpu|chain|vram|host)/' | cut -d'|' -f2,5,7,9,11
done < <(if [ -n "${DL_SETTINGS:-}" ]; then printf '%s\n' "$DL_SETTINGS"; else cat <<'LIST'

VSVK_DOWNLOAD_RING=32
VSVK_DOWNLOAD_COMPUTE_QUEUES=3
VSVK_DOWNLOAD_COMPUTE_QUEUES=3 VSVK_DOWNLOAD_RING=32
VSVK_DOWNLOAD_COMPUTE_QUEUES=3 VSVK_DOWNLOAD_RING=32 VSVK_PINNED_FRAMES=1
LIST
fi)
