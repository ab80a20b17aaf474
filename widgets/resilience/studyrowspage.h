// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "resilience/resiliencepage.h"

#include <memory>

class QTableWidget;

namespace rapid::widgets {

struct StudyRows;

/// A Resilience page whose result is a batch of fault studies (the fault study and the straggler study): it keeps
/// the rows on show, saves them with the workspace and restores them, and lists one right-aligned table row per
/// study beside the page's own chart, which showStudy draws.
class StudyRowsPage : public ResiliencePage {
    Q_OBJECT
public:
    QTableWidget* table() const { return m_table; }
    const std::shared_ptr<const StudyRows>& rows() const { return m_rows; }

protected:
    StudyRowsPage(WorkspaceDocument* document, const QString& runText, const QString& objectPrefix,
        const QStringList& tableHeaders, const QString& tableName, QWidget* parent);

    /// Draws @p rows in the chart and appends their table rows (the table is empty, the rows already on show).
    virtual void showStudy(const StudyRows& rows) = 0;
    virtual void clearChart() = 0;
    /// Sets the page's inputs to those that produced @p rows (a result restored with the workspace).
    virtual void showInputsOf(const StudyRows& rows) = 0;

    void clearResult() override;
    QJsonObject resultJson() const override;
    bool restoreResult(const QJsonObject& json, const std::optional<config::ResultDocuments>& from) override;

private:
    void showRows(const std::shared_ptr<const StudyRows>& rows);

    QTableWidget* m_table;
    std::shared_ptr<const StudyRows> m_rows; ///< the rows on show
};

/// "1, 2, 4": @p values in the order met, each once (the lists a study's rows were drawn from).
QString distinctValuesText(const std::vector<double>& values);

/// A read-only table with @p headers, sized to its contents.
QTableWidget* createResultTable(const QStringList& headers, const QString& objectName, QWidget* parent);
/// Appends a row of @p cells to @p table, right-aligned as figures are.
void appendResultRow(QTableWidget* table, const QStringList& cells);

} // namespace rapid::widgets
