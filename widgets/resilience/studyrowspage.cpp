// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/studyrowspage.h"

#include "resilience/resiliencerunner.h"
#include "resilience/resultcodec.h"

#include <QHeaderView>
#include <QTableWidget>

namespace rapid::widgets {

QTableWidget* createResultTable(const QStringList& headers, const QString& objectName, QWidget* parent)
{
    auto* table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    table->setObjectName(objectName);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setAlternatingRowColors(true);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(false); // stretched, the last column ran past the view at 1280x720
    return table;
}

StudyRowsPage::StudyRowsPage(WorkspaceDocument* document, const QString& runText, const QString& objectPrefix,
    const QStringList& tableHeaders, const QString& tableName, QWidget* parent)
    : ResiliencePage(document, runText, objectPrefix, parent)
    , m_table(createResultTable(tableHeaders, tableName, this))
{
    connect(runner(), &ResilienceRunner::studiesFinished, this, &StudyRowsPage::showRows);
}

void StudyRowsPage::showRows(const std::shared_ptr<const StudyRows>& rows)
{
    m_rows = rows;
    m_table->setRowCount(0);
    showStudy(*rows);
}

QString distinctValuesText(const std::vector<double>& values)
{
    QStringList texts;
    for (const double value : values) {
        const QString text = QString::number(value, 'g', 6);
        if (!texts.contains(text)) {
            texts.append(text);
        }
    }
    return texts.join(QStringLiteral(", "));
}

void appendResultRow(QTableWidget* table, const QStringList& cells)
{
    const int row = table->rowCount();
    table->insertRow(row);
    for (int column = 0; column < cells.size(); ++column) {
        auto* item = new QTableWidgetItem(cells[column]);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table->setItem(row, column, item);
    }
}

void StudyRowsPage::clearResult()
{
    m_rows.reset();
    m_table->setRowCount(0);
    clearChart();
}

QJsonObject StudyRowsPage::resultJson() const
{
    return m_rows ? studyRowsToJson(*m_rows) : QJsonObject();
}

bool StudyRowsPage::restoreResult(const QJsonObject& json, const std::optional<config::ResultDocuments>& /*from*/)
{
    const std::shared_ptr<const StudyRows> rows = studyRowsFromJson(json);
    if (rows) {
        // The inputs are not saved; shown as they were, the restored rows do not sit beside other numbers.
        if (!rows->specs.empty()) {
            showInputsOf(*rows);
        }
        showRows(rows);
    }
    return rows != nullptr;
}

} // namespace rapid::widgets
