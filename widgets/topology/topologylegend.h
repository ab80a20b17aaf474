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
    /// What the colour scale stands for and its three tick labels (utilisation 0%, 50%, 100% unless set): the
    /// criticality map shows slowdowns on the same scale.
    void setScaleLabels(const QString& caption, const QString& low, const QString& middle, const QString& high);
    QString scaleCaption() const { return m_caption; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int rowHeight() const;

    bool m_utilisation = false;
    QString m_caption;
    QString m_low;
    QString m_middle;
    QString m_high;
};

} // namespace rapid::widgets
