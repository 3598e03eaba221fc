# The Windows cross build and its Wine runs (tests/tests/windows.rs), sourced by scripts/setup.sh with
# $REF, say, die, have_cmd and apt_install set. Quick when all is there already.
#
# On the machine: mingw-w64 (gcc/g++ 12, the posix thread model: glslang and SPIRV-Tools use
# std::mutex, which gcc 12's win32 model lacks), Wine, cmake, ninja; rustup's x86_64-pc-windows-gnu.
# Into $REF/win:
#   shaderc/lib/libshaderc_combined.a  shaderc, glslang and SPIRV-Tools for x86_64-w64-mingw32, built
#                       once from the sources of the shaderc-sys crate that Cargo.lock pins (no
#                       prebuilt exists for mingw), pinned by that version in shaderc/VERSION
#   wheels/, x/         R81's Windows wheel (x/vapoursynth/libvapoursynth.dll, its filters DLLs) and
#                       CPU plugin wheels for win_amd64, unpacked (plugins to x/plugins)
#   prefix/             the WINEPREFIX the tests run in, created once
# VSVK_SETUP_NO_WINDOWS=1 skips all of it (then tests/tests/windows.rs fails, saying so).

WIN_TARGET=x86_64-pc-windows-gnu
WIN=$REF/win
# R81 and the plugin wheels of the Windows oracle runs: CPU plugins that the Linux runs use too.
WIN_WHEELS=(vapoursynth==81 vapoursynth-cas==3.0 vapoursynth-fillborders==4.0 vapoursynth-bwdif==5.1)

win_setup() {
  mkdir -p "$WIN"/{wheels,x}
  have_cmd x86_64-w64-mingw32-g++-posix || apt_install mingw-w64
  have_cmd wine || apt_install wine64
  have_cmd cmake || apt_install cmake
  have_cmd ninja || apt_install ninja-build
  if ! rustup target list --installed 2>/dev/null | grep -qx "$WIN_TARGET"; then
    say "adding the Rust target $WIN_TARGET"
    rustup target add "$WIN_TARGET" >&2 || die "rustup could not add $WIN_TARGET"
  fi
  win_shaderc
  win_wheels
  win_prefix
}

win_shaderc() {
  local root manifest src version out="$WIN/shaderc" build="$WIN/shaderc-build"
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  manifest=$(cd "$root" && cargo metadata --format-version 1 2>/dev/null |
    python3 -c 'import json, sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"] == "shaderc-sys"))') ||
    die "cargo metadata names no shaderc-sys (is Cargo.lock there?)"
  src=$(dirname "$manifest")/build
  version=$(basename "$(dirname "$manifest")")
  [ -f "$out/lib/libshaderc_combined.a" ] && [ "$(cat "$out/VERSION" 2>/dev/null)" = "$version" ] && return 0
  [ -f "$src/CMakeLists.txt" ] || die "no shaderc sources at $src"
  say "building $version (shaderc, glslang, SPIRV-Tools) for mingw-w64 (once; about 20 minutes on 2 cores)"
  mkdir -p "$build"
  cat > "$build/mingw.cmake" <<'EOF'
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
EOF
  # The options are shaderc-sys's own build-from-source ones.
  (cd "$build" && cmake -G Ninja "$src" -DCMAKE_TOOLCHAIN_FILE="$build/mingw.cmake" -DCMAKE_BUILD_TYPE=Release \
    -DENABLE_SPVREMAPPER=OFF -DENABLE_GLSLANG_BINARIES=OFF -DSHADERC_SKIP_TESTS=ON -DSHADERC_SKIP_EXAMPLES=ON \
    -DSPIRV_SKIP_EXECUTABLES=ON -DSPIRV_SKIP_TESTS=ON -DSPIRV_WERROR=OFF -DENABLE_CTEST=OFF >/dev/null &&
    nice -n 10 ninja shaderc_combined >/dev/null) || die "the mingw build of shaderc failed (in $build)"
  mkdir -p "$out/lib"
  cp "$(find "$build" -name libshaderc_combined.a | head -1)" "$out/lib/" || die "the shaderc build left no libshaderc_combined.a"
  echo "$version" > "$out/VERSION"
  rm -rf "$build"
}

win_wheels() {
  local req name version whl stage
  for req in "${WIN_WHEELS[@]}"; do
    name=${req%%==*} version=${req##*==}
    [ -d "$WIN/x/${name//-/_}-${version}.dist-info" ] && continue
    whl=$(ls "$WIN/wheels/${name//-/_}-${version}-"*win_amd64*.whl 2>/dev/null | head -1 || true)
    if [ -z "$whl" ]; then
      say "downloading $req for win_amd64"
      python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
        --platform win_amd64 -d "$WIN/wheels" "$req" >&2 || die "could not download the win_amd64 wheel of $req"
      whl=$(ls "$WIN/wheels/${name//-/_}-${version}-"*win_amd64*.whl 2>/dev/null | head -1 || true)
      [ -n "$whl" ] || die "the download of $req left no win_amd64 wheel in $WIN/wheels"
    fi
    stage="$WIN/.stage"
    rm -rf "$stage"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$stage"
    mkdir -p "$WIN/x/plugins"
    if [ -d "$stage/vapoursynth/plugins" ]; then
      cp -a "$stage/vapoursynth/plugins/." "$WIN/x/plugins/"
      rm -rf "$stage/vapoursynth/plugins"
    fi
    cp -a "$stage"/. "$WIN/x/"
    rm -rf "$stage"
  done
  [ -f "$WIN/x/vapoursynth/libvapoursynth.dll" ] || die "no Windows reference core at $WIN/x/vapoursynth/libvapoursynth.dll"
}

win_prefix() {
  local shim="$WIN/prefix/drive_c/windows/system32/bcryptprimitives.dll" root
  if [ ! -f "$WIN/prefix/system.reg" ]; then
    say "creating the Wine prefix $WIN/prefix"
    WINEPREFIX="$WIN/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" wineboot -i >/dev/null 2>&1 ||
      die "wineboot could not create $WIN/prefix"
    WINEPREFIX="$WIN/prefix" wineserver -w 2>/dev/null || true
  fi
  # Wine 8 lacks bcryptprimitives.dll, which every Rust program for Windows imports (tests/wine/)
  if [ ! -f "$shim" ]; then
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    x86_64-w64-mingw32-gcc-posix -O2 -Wall -Wextra -Werror -shared -static "$root/tests/wine/bcryptprimitives.c" \
      -o "$shim" -lbcrypt || die "could not build the Wine stand-in for bcryptprimitives.dll"
  fi
}

if [ -z "${VSVK_SETUP_NO_WINDOWS:-}" ]; then
  win_setup
fi
