#!/bin/bash
# The main job, as far as the core goes today: a chain of real published plugins (the same binaries
# VapourSynth R81 runs) driven through our core, target/release/libvsvk.so, and the same chain on R81
# for comparison. Prints one fingerprint line per core; they must be equal.
# The GPU half and the Python frontend are their own issues; when they land, this becomes a .vpy
# script through GPU filters under `vsvk pipe`.
set -euo pipefail
cd "$(dirname "$0")/.."
REF=$(scripts/setup.sh | tail -1)
cargo build --release -p vsvk-core
out=target/vsvk-example; mkdir -p "$out"
inc=include; [ -f include/VapourSynth4.h ] || inc="$REF/x/vapoursynth/include"
gcc -O2 -Wall -I"$inc" tests/oracle/driver.c -o "$out/driver" -ldl -lpthread
gcc -O2 -Wall -shared -fPIC -I"$inc" tests/plugins/vsvknoise.c -o "$out/vsvknoise.so"
chain=${1:-cas.CAS:sharpness=0.7,bwdif.Bwdif:field=1,znedi3.nnedi3:field=0,zsmooth.RemoveGrain:mode=12}
export LD_LIBRARY_PATH=$REF/loader/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
plugins=(--plugin "$out/vsvknoise.so" --plugin "$REF/plugins/cas.so" --plugin "$REF/plugins/bwdif.so"
         --plugin "$REF/plugins/znedi3.so" --plugin "$REF/plugins/zsmooth/libzsmooth.so")
for core in "$PWD/target/release/libvsvk.so" "$REF/x/vapoursynth/libvapoursynth.so.4"; do
  printf '%-28s ' "$(basename "$core"):"
  "$out/driver" "$core" "${plugins[@]}" --format YUV420P8 --width 1280 --height 720 --frames 48 "$chain"
done
