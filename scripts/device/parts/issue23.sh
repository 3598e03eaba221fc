#!/bin/bash
# Issue 23 in one device call: the bus first (bench/pcie.py: each direction alone and both at
# once), then settings compared on the rows that trail R81, both cores in each run (R81 ignores
# the VSVK_ variables). I23_SETS picks the sets (words: queues vrammode pinned roundtrip host).
# Settings tried on 2026-12-06 and removed since (download queue priority, a download lending its
# worker, admission control under VRAM pressure, a larger exec ring) are in
# bench/results/log-2026-12-06.md.
set -u
out=$1
echo "--- PCIe"
timeout 90 python3 bench/pcie.py 2>&1 | tail -5
compare() {  # label cases settings (one per line; a blank line is the default)
  echo "=== $1"
  mkdir -p "$out/$1"
  DL_CASES=$2 DL_SETTINGS=$3 bash scripts/device/parts/downloads.sh "$out/$1"
}
sets=${I23_SETS:-queues vrammode pinned}
if [[ " $sets " = *" queues "* ]]; then
  # the default (copies keep off the compute family while its queue is busy) against copies always
  # spread over it (VSVK_COMPUTE_BUSY_PERCENT=101) and never (VSVK_DOWNLOAD_COMPUTE_QUEUES=0)
  DL_BUDGET=110 compare queues gpu/bm3d-1080p,gpu/bm3d-2160p,gpu/knlmeans-1080p,gpu/vk-expr-1080p,gpu/vk-boxblur-2160p,chain/knlm-nnedi3-bm3d-1080p,chain/mixed-1080p,bw/updown-1080p-8 "
VSVK_COMPUTE_BUSY_PERCENT=101
VSVK_DOWNLOAD_COMPUTE_QUEUES=0"
fi
if [[ " $sets " = *" vrammode "* ]]; then
  # what an allocation past the limit does (VSVK_VRAM_MODE; keep is the default)
  compare vrammode vram/knlm4-1080p-256mb "VSVK_VRAM_MODE=evict
VSVK_VRAM_MODE=keep
VSVK_VRAM_MODE=soft
VSVK_VRAM_MODE=none"
fi
if [[ " $sets " = *" pinned "* ]]; then
  # frames in pinned host memory, the large ones (VSVK_UPLOAD_DMA_MIN_KB, 8 MB) going up by the copy
  # engines, against the CPU writing every upload into the BAR
  DL_BUDGET=110 compare pinned bw/up-1080p-8,bw/up-1080p-16,bw/up-2160p-8,bw/up-2160p-16,bw/updown-1080p-8,bw/updown-1080p-16,bw/updown-2160p-8,bw/updown-2160p-16,gpu/vk-expr-1080p,gpu/knlmeans-2160p "
VSVK_PINNED_FRAMES=1"
fi
if [[ " $sets " = *" roundtrip "* ]]; then
  compare roundtrip bw/updown-2160p-16,bw/up-2160p-16,bw/down-2160p-16 "
VSVK_PINNED_FRAMES=1
VSVK_PINNED_FRAMES=1 VSVK_DOWNLOAD_QUEUES=2"
fi
if [[ " $sets " = *" host "* ]]; then
  compare host host/pass100-t1,host/copy50-t1,host/temporal50-t1 " "
fi
