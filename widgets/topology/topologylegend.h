// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

namespace rapid::widgets {

/// The key of the topology view: what a healthy, degraded, failed and selected link look like, and with
/// utilisation the colour scale (0..100% of the busier direction). Painted with the same topologystyle pens as the
/// links.
class TopologyLegend : public QWidget {
    Q_OBJECT
public:
    explicit TopologyLegend(QWidget* parent = nullptr);

    void setShowsUtilisation(bool shows);
    bool showsUtilisation() const { return m_utilisation; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int rowHeight() const;

    bool m_utilisation = false;
};

} // namespace rapid::widgets
