// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"

#include <string>
#include <vector>

namespace rapid::graph {

/// ASTRA-sim's input files for a rapid hardware preset, so that exported traces run on the same network there
/// (`rapid chakra astra-config`, docs/chakra.md).
struct AstraConfig {
    /// Analytical network backend (YAML): one entry per ASTRA-sim dimension, innermost first, with topology,
    /// npus_count, bandwidth (GB/s per link and direction) and latency (ns per hop).
    std::string network;
    std::string system; ///< system layer (JSON): ring collectives on every dimension, as rapid's analytical model
    std::string remoteMemory; ///< {"memory-type": "NO_MEMORY_EXPANSION"}: traces carry no memory nodes
    /// What ASTRA-sim's analytical network cannot express and was approximated (also written as comments in
    /// `network`): mesh edges, fat-tree tiers and oversubscription, link faults, stragglers.
    std::vector<std::string> approximations;
};

/// Maps @p hardware's network dimensions onto ASTRA-sim's: a switch, ring or fully-connected dimension is one
/// dimension of that topology; a 2D/3D torus or mesh is one Ring per axis (a mesh's missing wrap-around links
/// approximated); a fat tree is one Switch of its endpoints at the per-endpoint uplink bandwidth (link bandwidth over
/// the oversubscription).
AstraConfig astraConfigFor(const config::HardwareSpec& hardware);

} // namespace rapid::graph
