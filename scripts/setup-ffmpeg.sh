#!/bin/bash
# Sourced by scripts/setup.sh. Builds the FFmpeg the vkdecode plugin links statically, once per machine:
#   $REF/ffmpeg/{include,lib}  FFmpeg 7.1.5 (Debian trixie's source package), libavformat/libavcodec/
#                              libavutil only: the mp4/mkv/ts (and raw H.264/HEVC/IVF/OBU) demuxers, the
#                              H.264/HEVC decoders, AV1 through libdav1d, the Vulkan Video hwaccels
#   $REF/dav1d/                dav1d 1.5.1 (trixie's source), static, so AV1 needs no system library
# Both are pinned by the versions below; bumping one rebuilds it (the stamp files name the version).
# Debian 12's FFmpeg 5.1 is too old for what the plugin needs: its Vulkan hwaccel predates Vulkan Video.

# Debian versions as apt names them (FFmpeg's carries the epoch 7:; file names and stamps do not)
FFMPEG_VERSION=7:7.1.5-0+deb13u1
DAV1D_VERSION=1.5.1-1

ffmpeg_ok() {
  [ "$(cat "$REF/ffmpeg/.version" 2>/dev/null)" = "${FFMPEG_VERSION#*:}" ] && [ -f "$REF/ffmpeg/lib/libavcodec.a" ]
}
dav1d_ok() {
  [ "$(cat "$REF/dav1d/.version" 2>/dev/null)" = "$DAV1D_VERSION" ] && [ -f "$REF/dav1d/lib/libdav1d.a" ]
}

fetch_trixie_source() { # fetch_trixie_source PACKAGE VERSION
  local pkg=$1 version=$2
  ls "$REF/src/${pkg}_${version#*:}.dsc" >/dev/null 2>&1 && return 0
  debian_stanza trixie > "$REF/apt/parts/trixie.sources"
  sed -e 's/^Types: deb$/Types: deb-src/' "$REF/apt/parts/trixie.sources" > "$REF/apt/parts/trixie-src.sources"
  local aptx=(-o APT::Sandbox::User=root -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$REF/apt/parts" -o "Dir::State::Lists=$REF/apt/lists")
  say "fetching trixie's $pkg $version source"
  apt-get "${aptx[@]}" update -qq >/dev/null
  (cd "$REF/src" && apt-get "${aptx[@]}" source --download-only "$pkg=$version" >/dev/null) ||
    die "could not fetch trixie's $pkg $version source"
}

unpack_orig() { # unpack_orig PACKAGE VERSION -> prints the unpacked folder
  local pkg=$1 version=${2#*:} orig dir
  version=${version%-*}
  orig=$(ls "$REF/src/${pkg}_${version}.orig.tar."* | grep -v '\.asc$' | head -1)
  dir=$(tar tf "$orig" | awk -F/ 'NR == 1 { print $1 }')
  (cd "$REF/src" && rm -rf "$dir" && tar xf "$orig")
  echo "$REF/src/$dir"
}

if ! dav1d_ok; then
  have_cmd meson && have_cmd ninja && have_cmd nasm || apt_install meson ninja-build nasm
  fetch_trixie_source dav1d "$DAV1D_VERSION"
  say "building dav1d $DAV1D_VERSION (static)"
  dir=$(unpack_orig dav1d "$DAV1D_VERSION")
  rm -rf "$REF/dav1d"
  (
    cd "$dir"
    meson setup build --prefix="$REF/dav1d" --libdir=lib --buildtype=release --default-library=static \
      -Db_staticpic=true -Denable_tools=false -Denable_tests=false -Denable_examples=false >/dev/null || exit 1
    ninja -C build install >build.log 2>&1 || { tail -20 build.log >&2; exit 1; }
  ) || die "the dav1d build failed"
  echo "$DAV1D_VERSION" > "$REF/dav1d/.version"
  rm -rf "$dir"
fi

if ! ffmpeg_ok; then
  have_cmd nasm || apt_install nasm
  have_cmd make && have_cmd gcc || apt_install build-essential
  fetch_trixie_source ffmpeg "$FFMPEG_VERSION"
  say "building FFmpeg ${FFMPEG_VERSION#*:} (minimal, static; two to three minutes on 2 cores)"
  dir=$(unpack_orig ffmpeg "$FFMPEG_VERSION")
  rm -rf "$REF/ffmpeg"
  (
    cd "$dir"
    # --disable-autodetect keeps every optional system library (zlib, lzma, xcb, ...) out of the link;
    # Vulkan is headers only (FFmpeg takes the entry points from the caller or dlopens the loader).
    PKG_CONFIG_PATH="$REF/dav1d/lib/pkgconfig" ./configure --prefix="$REF/ffmpeg" \
      --disable-everything --disable-autodetect --disable-programs --disable-doc --disable-network \
      --disable-avdevice --disable-avfilter --disable-swresample --disable-swscale --disable-postproc \
      --enable-static --disable-shared --enable-pic --pkg-config-flags=--static \
      --extra-cflags="-I$REF/src/hdr/usr/include" \
      --enable-protocol=file \
      --enable-demuxer=mov,matroska,mpegts,h264,hevc,ivf,obu \
      --enable-parser=h264,hevc,av1 \
      --enable-decoder=h264,hevc,av1,libdav1d --enable-libdav1d \
      --enable-vulkan --enable-hwaccel=h264_vulkan,hevc_vulkan,av1_vulkan \
      --enable-bsf=h264_mp4toannexb,hevc_mp4toannexb,av1_frame_split,av1_frame_merge >/dev/null ||
      { tail -3 ffbuild/config.log >&2; exit 1; }
    { make -j"$(nproc)" && make install; } >build.log 2>&1 || { tail -20 build.log >&2; exit 1; }
  ) || die "the FFmpeg build failed (its config.log is in $dir)"
  echo "${FFMPEG_VERSION#*:}" > "$REF/ffmpeg/.version"
  rm -rf "$dir"
fi
