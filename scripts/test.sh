#!/bin/bash
# Builds the core (target/release/libvsvk.so) and runs every test of the workspace. The oracle tests
# also need the reference that scripts/setup.sh installs. Extra arguments go to cargo test.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
cargo test --release --workspace --no-fail-fast "$@"
