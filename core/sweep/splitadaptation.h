// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sweepspace.h"

#include "config/modelspec.h"
#include "config/runspec.h"

namespace rapid::sweep {

/// Makes every split of @p splits (parallelSplits) a scenario the loader accepts, as a user changing the degrees by
/// hand would: the base run's explicit network mapping is dropped (it was written for the base split; each split
/// gets the default placement, innermost axes first), an explicit layers_per_stage is dropped when pp changes, and an
/// interleaved schedule keeps the most virtual stages, up to the base's, that the split allows (pp x v within the
/// layers, micro-batches per step a multiple of pp), falling back to 1F1B when no v >= 2 fits. A split whose
/// schedule or virtual stages differ from the base's says so in its label ("tp8 pp2 dp4 v3", "... 1f1b").
/// Without this, splits of the default workspace were mostly invalid (18 of 22: its mapping puts dp on InfiniBand).
void adaptSplits(SweepAxis& splits, const config::ModelSpec& model, const config::RunSpec& base);

} // namespace rapid::sweep
