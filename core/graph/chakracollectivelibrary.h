// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakratrace.h"
#include "network/collective.h"

#include <optional>
#include <vector>

namespace rapid::graph {

/// The library the traces record in kCollectiveLibraryAttribute (graph/chakraexport.h: rapid writes it); nullopt when
/// none records one (traces of other tools). std::invalid_argument naming the file when a value is neither library, or
/// when two traces disagree.
std::optional<network::CollectiveLibrary> recordedCollectiveLibrary(const std::vector<ChakraTrace>& traces);

/// NCCL when the traces' collectives are NCCL's own kernels: every COMM_COLL_NODE that names a collective (comm_type)
/// is called ncclKernel_... (NCCL before 2.19) or ncclDevKernel_... (since), as Chakra's converter names the GPU
/// kernels of a PyTorch execution trace it links with the Kineto trace. Else nullopt: no such node, or one that is
/// something else (a hand-built or simulator-written trace, a custom all-reduce kernel), says nothing of the library.
std::optional<network::CollectiveLibrary> kernelNamedCollectiveLibrary(const std::vector<ChakraTrace>& traces);

} // namespace rapid::graph
