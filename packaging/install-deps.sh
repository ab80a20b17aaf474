#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian 12 packages RAPID-LLM Workbench needs to build, test and run.
# Idempotent: when every package is already installed it does nothing (no apt-get update, no install).
# Usage: packaging/install-deps.sh [--with-gui-tools] [--fuzz]   (as root, or with sudo available)
set -euo pipefail

# Build and runtime dependencies (see ../shared/design/BUILD-NOTES.md for the versions checked). libns3-dev (ns-3
# 3.37, ~60 MB with libns3.37 and GSL) is only for the packet-level cross-check in tests/ns3, skipped without it;
# Open MPI lets `mpirun -np N rapid resilience` share its trials (tests/app/tst_resiliencempi), optional to build.
# poppler-utils (pdffonts, pdftotext) lets tests/widgets/tst_figureexport check exported PDFs: fonts embedded, text
# as text, no two words overlapping.
packages=(
    build-essential cmake ninja-build pkg-config ccache
    qt6-base-dev qt6-svg-dev libqcustomplot-dev libgraphviz-dev
    libyaml-cpp-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev
    fonts-dejavu-core clang-format
    poppler-utils
    libns3-dev
    libopenmpi-dev openmpi-bin
)
# --with-gui-tools: a real X server for screenshots of the running application (optional).
# --fuzz: clang 14 and its libFuzzer runtime for the libfuzzer preset (tests/libfuzzer; optional).
for option in "$@"; do
    case "$option" in
    --with-gui-tools) packages+=(xvfb xauth) ;;
    --fuzz) packages+=(clang-14 libclang-rt-14-dev) ;;
    *) echo "install-deps: unknown option $option (expected --with-gui-tools or --fuzz)" >&2; exit 2 ;;
    esac
done

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps: all ${#packages[@]} packages already installed"
    exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
