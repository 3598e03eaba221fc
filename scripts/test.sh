#!/bin/bash
# The tests, one command on a fresh machine: installs what they need (scripts/setup.sh: quick when it
# is all there), builds the core (target/release/libvsvk.so), runs every test of the workspace, then
# the ecosystem test (tests/ecosystem/run.py: vsvk's wheel in a fresh venv beside R81's package and
# plugin wheels, `vsvk pipe` end to end, vs-jetpack's test suite on both frontends and cores).
# Extra arguments go to cargo test. VSVK_SKIP_ECOSYSTEM=1 skips the ecosystem test.
set -euo pipefail
cd "$(dirname "$0")/.."
REF=$(scripts/setup.sh | tail -1)
export VSVK_REF=$REF
cargo build --release
status=0
cargo test --release --workspace --no-fail-fast "$@" || status=$?
if [ -z "${VSVK_SKIP_ECOSYSTEM:-}" ]; then
  python3 tests/ecosystem/run.py || status=$((status ? status : $?))
fi
exit "$status"
