// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphlayoutjob.h"

#include "tracegraph/graphvizrenderer.h"

#include <QElapsedTimer>

#include <exception>
#include <sstream>

namespace rapid::widgets {

GraphLayout layoutChakraGraph(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter)
{
    GraphLayout layout;
    QElapsedTimer timer;
    timer.start();
    try {
        std::ostringstream dot;
        graph::writeChakraDot(dot, trace, filter);
        layout.svg = renderDotToSvg(dot.str(), &layout.error);
        if (layout.ok()) {
            layout.index = indexSvgNodes(layout.svg);
        }
    } catch (const std::exception& error) {
        // Runs on a worker thread: an exception must not escape into QtConcurrent.
        layout.svg.clear();
        layout.error = QString::fromUtf8(error.what());
    }
    layout.seconds = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
    return layout;
}

} // namespace rapid::widgets
