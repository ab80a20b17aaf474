#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The README's first command: install what is missing, build, and run the main job — the workbench on the default
# workspace when a display is available, otherwise `rapid run` on the default preset.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash packaging/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
    exec build/release/app/workbench/rapid-workbench "$@"
fi
echo "No display: running the command-line job instead (rapid run on the default workspace)."
exec build/release/app/rapid run "$@"
