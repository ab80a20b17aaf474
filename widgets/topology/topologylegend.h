// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>
#include <QWidget>

namespace rapid::widgets {

/// The key of the topology view: what a healthy, degraded, failed and selected link look like, and with
/// utilisation the colour scale (0..100% of the busier direction). Painted with the same topologystyle pens as the
/// links. As a strip (setStrip) it is the colour scale alone, in two rows as wide as it is given, to sit beside a
/// drawing rather than over it.
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
    /// The colour scale alone, caption then bar on one row and the tick labels under the bar, without the card: for
    /// a layout under a drawing (the criticality map), where the card would cover links in a small view.
    void setStrip(bool strip);
    bool isStrip() const { return m_strip; }

    /// The texts of the four link samples, top to bottom.
    static QStringList sampleTexts();

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int rowHeight() const;
    void paintStrip(QPainter& painter);
    /// The colour bar over @p bar and the three tick labels in the row at @p labelsTop under it.
    void paintScale(QPainter& painter, const QRect& bar, int labelsTop);

    bool m_utilisation = false;
    bool m_strip = false;
    QString m_caption;
    QString m_low;
    QString m_middle;
    QString m_high;
};

} // namespace rapid::widgets
