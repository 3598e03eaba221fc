#!/bin/bash
# Issue 23 in one device call: the bus first (bench/pcie.py: each direction alone and both at
# once), then settings compared on the rows that trail R81, both cores in each run (R81 ignores
# the VSVK_ variables): where downloads go and how they wait (BM3D, KNLMeans, the chain, vk.Expr),
# admission control under a 256 MB VRAM limit, and pinned frames on the 2160p 16-bit round trip.
# I23_SETS picks the sets (words: queues vram roundtrip vrammode pinned host ring).
set -u
out=$1
echo "--- PCIe"
timeout 90 python3 bench/pcie.py 2>&1 | tail -5
compare() {  # label cases settings
  echo "=== $1"
  mkdir -p "$out/$1"
  DL_CASES=$2 DL_SETTINGS=$3 bash scripts/device/parts/downloads.sh "$out/$1"
}
sets=${I23_SETS:-queues vram roundtrip}
if [[ " $sets " = *" queues "* ]]; then
  compare queues gpu/bm3d-1080p,gpu/knlmeans-1080p,gpu/vk-expr-1080p,chain/knlm-nnedi3-bm3d-1080p "
VSVK_DOWNLOAD_QUEUE_PRIORITY=0
VSVK_DOWNLOAD_LEND=1
VSVK_DOWNLOAD_COMPUTE_QUEUES=0
VSVK_DOWNLOAD_COMPUTE_QUEUES=0 VSVK_DOWNLOAD_LEND=1"
fi
if [[ " $sets " = *" vram "* ]]; then
  compare vram vram/knlm4-1080p-256mb "VSVK_ADMIT_UNDER_PRESSURE=0
VSVK_ADMIT_UNDER_PRESSURE=2

VSVK_ADMIT_UNDER_PRESSURE=8"
fi
if [[ " $sets " = *" roundtrip "* ]]; then
  compare roundtrip bw/updown-2160p-16,bw/up-2160p-16,bw/down-2160p-16 "
VSVK_PINNED_FRAMES=1
VSVK_PINNED_FRAMES=1 VSVK_DOWNLOAD_QUEUES=2"
fi
if [[ " $sets " = *" vrammode "* ]]; then
  # what an allocation past the limit does (VSVK_VRAM_MODE), without and with admission control
  compare vrammode vram/knlm4-1080p-256mb "VSVK_ADMIT_UNDER_PRESSURE=0
VSVK_ADMIT_UNDER_PRESSURE=0 VSVK_VRAM_MODE=keep
VSVK_ADMIT_UNDER_PRESSURE=0 VSVK_VRAM_MODE=soft
VSVK_ADMIT_UNDER_PRESSURE=0 VSVK_VRAM_MODE=none
VSVK_VRAM_MODE=soft"
fi
if [[ " $sets " = *" pinned "* ]]; then
  # uploads by the copy engines from pinned frames (BlankClip's kept frame now made after the
  # device is up), spread over the copy queues, against the CPU writing the BAR
  compare pinned bw/updown-2160p-16,bw/up-2160p-16,bw/updown-1080p-8,gpu/vk-expr-1080p,gpu/bm3d-1080p,gpu/knlmeans-1080p "
VSVK_PINNED_FRAMES=1
VSVK_PINNED_FRAMES=1 VSVK_DOWNLOAD_QUEUE_PRIORITY=0"
fi
if [[ " $sets " = *" host "* ]]; then
  compare host host/pass100-t1,host/copy50-t1,host/temporal50-t1 " "
fi
if [[ " $sets " = *" ring "* ]]; then
  # exec pool contexts (VSVK_EXEC_RING): BM3D's acquire waits out the ring's oldest submission
  compare ring gpu/bm3d-1080p,chain/knlm-nnedi3-bm3d-1080p,gpu/knlmeans-1080p " 
VSVK_EXEC_RING=16
VSVK_EXEC_RING=32"
fi
