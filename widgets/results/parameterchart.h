// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/chartwidget.h"

#include "model/modelstats.h"

namespace rapid::widgets {

/// Horizontal bars of a model's parameters by part (embeddings, attention, MLP, norms, LM head), each labelled with
/// its count.
class ParameterChart : public ChartWidget {
    Q_OBJECT
public:
    explicit ParameterChart(QWidget* parent = nullptr);

    void setCounts(const model::ParameterCounts& counts);

protected:
    void rebuild() override;

private:
    model::ParameterCounts m_counts;
    bool m_hasCounts = false;
};

/// "70.55 B", "1.31 M", "8,192": a parameter count short enough for a label.
QString formatCount(double count);

} // namespace rapid::widgets
