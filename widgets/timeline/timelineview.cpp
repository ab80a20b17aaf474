// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline/timelineview.h"

#include "common/figureformat.h"
#include "timeline/timelinecanvas.h"
#include "timeline/timelinestyle.h"

#include "report/chrometrace.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QToolButton>
#include <QVBoxLayout>

#include <array>

namespace rapid::widgets {

namespace {

QToolButton* toolButton(QAction* action, QWidget* parent)
{
    auto* button = new QToolButton(parent);
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button->setAutoRaise(true);
    return button;
}

/// A small filled square of @p color with a hairline border, so light colours keep an edge on a light window.
QPixmap swatch(const QColor& color, int size, qreal devicePixelRatio)
{
    QPixmap pixmap(QSize(size, size) * devicePixelRatio);
    pixmap.setDevicePixelRatio(devicePixelRatio);
    pixmap.fill(color);
    QPainter painter(&pixmap);
    painter.setPen(color.darker(140));
    painter.drawRect(QRectF(0, 0, size - 1, size - 1));
    return pixmap;
}

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent)
    , m_canvas(new TimelineCanvas(this))
    , m_legend(new QHBoxLayout)
    , m_summary(new QLabel(this))
    , m_fit(new QAction(tr("Fit"), this))
    , m_expandAll(new QAction(tr("Expand All"), this))
    , m_collapseAll(new QAction(tr("Collapse All"), this))
    , m_export(new QAction(tr("Export Chrome Trace…"), this))
{
    setObjectName(QStringLiteral("timelineView"));
    m_fit->setToolTip(tr("Show the whole step (double-click the bars, or press F)"));
    m_expandAll->setToolTip(tr("Show every stream of every stage"));
    m_collapseAll->setToolTip(tr("Fold every stage into one summary row"));
    m_export->setToolTip(tr("Save the timeline as Chrome trace JSON, for chrome://tracing or ui.perfetto.dev"));
    connect(m_fit, &QAction::triggered, m_canvas, &TimelineCanvas::fitToView);
    connect(m_expandAll, &QAction::triggered, m_canvas, [this] { m_canvas->setAllCollapsed(false); });
    connect(m_collapseAll, &QAction::triggered, m_canvas, [this] { m_canvas->setAllCollapsed(true); });
    connect(m_export, &QAction::triggered, this, &TimelineView::exportWithDialog);
    // The same actions on the canvas's context menu, where the hand already is.
    m_canvas->addActions({ m_fit, m_expandAll, m_collapseAll, m_export });
    m_canvas->setContextMenuPolicy(Qt::ActionsContextMenu);

    auto* tools = new QHBoxLayout;
    tools->setContentsMargins(0, 0, 0, 0);
    tools->addWidget(toolButton(m_fit, this));
    tools->addWidget(toolButton(m_expandAll, this));
    tools->addWidget(toolButton(m_collapseAll, this));
    tools->addSpacing(12);
    m_summary->setObjectName(QStringLiteral("timelineSummary"));
    // The summary and the legend may be cut off in a narrow results column rather than widen the window.
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    tools->addWidget(m_summary, 1);
    auto* exportButton = toolButton(m_export, this);
    exportButton->setObjectName(QStringLiteral("timelineExport"));
    tools->addWidget(exportButton);

    m_legend->setContentsMargins(6, 0, 6, 0);
    m_legend->setSpacing(4);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addLayout(tools);
    auto* legendRow = new QWidget(this);
    legendRow->setLayout(m_legend);
    legendRow->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(legendRow);
    layout->addWidget(m_canvas, 1);

    clear(tr("No timeline yet."));
}

void TimelineView::setTimeline(const report::TrainingResult& result, const QString& title)
{
    m_result = result;
    m_title = title;
    m_canvas->setEvents(result.timeline);
    const bool any = !m_canvas->rows().empty();
    for (QAction* action : { m_fit, m_expandAll, m_collapseAll, m_export }) {
        action->setEnabled(any);
    }
    m_summary->setText(any ? tr("%1 stages · %2 events · step %3")
                                 .arg(m_canvas->rows().stages().size())
                                 .arg(QLocale().toString(static_cast<qlonglong>(result.timeline.size())))
                                 .arg(formatSeconds(result.stepTimeSeconds))
                           : QString());
    if (!any) {
        m_canvas->clear(tr("The prediction has no timeline."));
    }
    updateLegend();
}

void TimelineView::clear(const QString& message)
{
    m_result.reset();
    m_title.clear();
    m_canvas->clear(message);
    for (QAction* action : { m_fit, m_expandAll, m_collapseAll, m_export }) {
        action->setEnabled(false);
    }
    m_summary->clear();
    updateLegend();
}

bool TimelineView::exportChromeTrace(const QString& path, QString* error) const
{
    auto fail = [error](const QString& message) {
        if (error) {
            *error = message;
        }
        return false;
    };
    if (!m_result) {
        return fail(tr("There is no timeline to export."));
    }
    const std::string json = report::chromeTraceJson(*m_result, m_title.toStdString());
    // QSaveFile: a failed write leaves an earlier export intact rather than half a JSON file.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return fail(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    }
    if (file.write(json.data(), static_cast<qint64>(json.size())) != static_cast<qint64>(json.size())
        || !file.commit()) {
        return fail(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    }
    return true;
}

void TimelineView::exportWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Chrome Trace"), QStringLiteral("timeline.json"),
        tr("Chrome trace JSON (*.json);;All files (*)"));
    if (path.isEmpty()) {
        return;
    }
    QString error;
    if (!exportChromeTrace(path, &error)) {
        QMessageBox::warning(this, tr("Export Chrome Trace"), error);
    }
}

void TimelineView::updateLegend()
{
    while (QLayoutItem* item = m_legend->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (!m_result || m_canvas->rows().empty()) {
        return;
    }
    // Only the categories that occur: a run without ZeRO has no parameter gathers to explain.
    std::array<bool, kTimelineCategoryCount> present {};
    for (const report::TimelineEvent& event : m_result->timeline) {
        present[static_cast<size_t>(timelineCategory(event))] = true;
    }
    const int size = fontMetrics().height() - 4;
    for (int c = 0; c < kTimelineCategoryCount; ++c) {
        if (!present[static_cast<size_t>(c)]) {
            continue;
        }
        const auto category = static_cast<TimelineCategory>(c);
        auto* box = new QLabel(this);
        box->setPixmap(swatch(timelineColor(category), size, devicePixelRatioF()));
        m_legend->addWidget(box);
        m_legend->addWidget(new QLabel(timelineCategoryName(category), this));
        m_legend->addSpacing(10);
    }
    m_legend->addStretch(1);
    auto* hint = new QLabel(tr("Wheel: zoom · drag: pan · double-click: fit · click a stage: fold"), this);
    hint->setEnabled(false); // the disabled text colour: present, but quieter than the legend
    m_legend->addWidget(hint);
}

} // namespace rapid::widgets
