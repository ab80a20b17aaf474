// SPDX-License-Identifier: GPL-3.0-or-later
#include "resultspanel.h"

#include "parameterchart.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace rapid::widgets {

namespace {

QString joinInts(const std::vector<int>& values)
{
    QStringList parts;
    for (int value : values) {
        parts.append(QString::number(value));
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

ResultsPanel::ResultsPanel(QWidget* parent)
    : QWidget(parent)
    , m_note(new QLabel(tr("No time prediction yet: the performance model is not implemented"), this))
    , m_stale(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_chart(new ParameterChart(this))
    , m_placement(new QTableWidget(this))
{
    setObjectName(QStringLiteral("resultsPanel"));
    m_note->setObjectName(QStringLiteral("predictionNote"));
    m_note->setWordWrap(true);
    QFont italic = m_note->font();
    italic.setItalic(true);
    m_note->setFont(italic);
    m_summary->setObjectName(QStringLiteral("resultsSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_stale->setWordWrap(true);
    m_stale->setText(tr("The configuration has problems (see Diagnostics); these are the results of the last valid "
                        "one."));
    m_stale->hide();
    m_placement->setObjectName(QStringLiteral("placementTable"));
    m_placement->setColumnCount(5);
    m_placement->setHorizontalHeaderLabels(
        { tr("Axis"), tr("Degree"), tr("Stride"), tr("Network"), tr("Group of rank 0") });
    for (int column = 0; column < 4; ++column) {
        m_placement->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    m_placement->horizontalHeader()->setSectionResizeMode(4, QHeaderView::Stretch);
    m_placement->verticalHeader()->hide();
    m_placement->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_placement->setSelectionMode(QAbstractItemView::NoSelection);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_note);
    layout->addWidget(m_stale);
    layout->addWidget(m_summary);
    layout->addWidget(m_chart, 3);
    auto* placementTitle = new QLabel(tr("Rank placement (innermost axis first)"), this);
    QFont bold = placementTitle->font();
    bold.setBold(true);
    placementTitle->setFont(bold);
    layout->addWidget(placementTitle);
    layout->addWidget(m_placement, 2);
}

void ResultsPanel::showEvaluation(const Evaluation& evaluation)
{
    const model::ParameterCounts& counts = evaluation.parameters;
    QString gpus = tr("<b>GPUs:</b> %1 in the hardware, %2 used by the run (tp·pp·dp·cp)")
                       .arg(evaluation.hardwareGpus)
                       .arg(evaluation.runGpus);
    QString parameters = tr("<b>Parameters:</b> %1 total, %2 touched per token")
                             .arg(formatCount(static_cast<double>(counts.total())),
                                 formatCount(static_cast<double>(counts.activePerToken())));
    QString text = gpus + QStringLiteral("<br>") + parameters;
    for (const config::Diagnostic& problem : evaluation.placementProblems) {
        text += QStringLiteral("<br>")
            + tr("Placement: %1").arg(QString::fromStdString(problem.toString()).toHtmlEscaped());
    }
    m_summary->setText(text);
    m_chart->setCounts(counts);

    m_placement->setRowCount(static_cast<int>(evaluation.placement.axes.size()));
    int row = 0;
    for (const parallel::AxisPlacement& axis : evaluation.placement.axes) {
        QStringList networks;
        for (int dimension : axis.dimensions) {
            const bool named = dimension >= 0 && static_cast<size_t>(dimension) < evaluation.dimensionNames.size();
            networks.append(named ? QString::fromStdString(evaluation.dimensionNames[static_cast<size_t>(dimension)])
                                  : QString::number(dimension));
        }
        const QStringList cells = { QString::fromStdString(axis.axis), QString::number(axis.degree),
            QString::number(axis.stride), networks.join(QStringLiteral(" + ")), joinInts(axis.firstGroup) };
        for (int column = 0; column < cells.size(); ++column) {
            m_placement->setItem(row, column, new QTableWidgetItem(cells[column]));
        }
        ++row;
    }
}

void ResultsPanel::setStale(bool stale)
{
    m_stale->setVisible(stale);
}

} // namespace rapid::widgets
