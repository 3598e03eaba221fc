#!/bin/bash
# The streams scripts/device/parts/decode.sh decodes on the device (which has no encoder), made here
# with Debian's ffmpeg into target/vsvk-vkdecode-bench/ (kit-extra.txt carries them): a moving test
# pattern with temporal noise, so that every frame costs the decoder real work, 120 frames each.
set -euo pipefail
cd "$(dirname "$0")/../.."
D=target/vsvk-vkdecode-bench
mkdir -p $D
[ -f $D/h264-1080p.mp4 ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=s=1920x1080:r=30,noise=alls=6:allf=t" \
  -frames:v 120 -c:v libx264 -preset veryfast -crf 20 -g 60 -pix_fmt yuv420p $D/h264-1080p.mp4
[ -f $D/hevc10-2160p.mkv ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=s=3840x2160:r=30,noise=alls=6:allf=t,format=yuv420p10le" \
  -frames:v 120 -c:v libx265 -preset ultrafast -crf 24 -x265-params log-level=error:keyint=60 $D/hevc10-2160p.mkv
ls -la $D
