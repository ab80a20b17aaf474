// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/runspanel.h"

#include "common/problemcolor.h"

#include "editors/runsession.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QVBoxLayout>

namespace rapid::widgets {

namespace {

/// The run's name alone, where the item's text adds its state ("evaluating…", an error).
constexpr int kNameRole = Qt::UserRole + 1;

/// Renaming edits the name, not the text shown with the state after it.
class RunNameDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        if (auto* line = qobject_cast<QLineEdit*>(editor)) {
            line->setText(index.data(kNameRole).toString());
            return;
        }
        QStyledItemDelegate::setEditorData(editor, index);
    }
};

} // namespace

RunsPanel::RunsPanel(RunSession* session, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_list(new QListWidget(this))
    , m_useAsBaseline(new QPushButton(tr("Use as baseline"), this))
    , m_clearBaseline(new QPushButton(tr("No baseline"), this))
    , m_remove(new QPushButton(tr("Remove"), this))
{
    setObjectName(QStringLiteral("runsPanel"));
    m_list->setObjectName(QStringLiteral("runsList"));
    m_list->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
    m_list->setItemDelegate(new RunNameDelegate(m_list));
    auto* hint = new QLabel(tr("Pinned runs, saved with the workspace. Double-click a run to compare against it; F2 "
                               "renames."),
        this);
    hint->setWordWrap(true);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_useAsBaseline);
    buttons->addWidget(m_clearBaseline);
    buttons->addWidget(m_remove);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(hint);
    layout->addWidget(m_list);
    layout->addLayout(buttons);

    connect(m_session, &RunSession::runsChanged, this, &RunsPanel::rebuild);
    connect(m_session, &RunSession::baselineChanged, this, &RunsPanel::rebuild);
    connect(m_list, &QListWidget::itemChanged, this, &RunsPanel::itemEdited);
    connect(m_list, &QListWidget::itemDoubleClicked, this, &RunsPanel::useSelectedAsBaseline);
    connect(m_list, &QListWidget::currentRowChanged, this, &RunsPanel::updateButtons);
    connect(m_useAsBaseline, &QPushButton::clicked, this, &RunsPanel::useSelectedAsBaseline);
    connect(m_clearBaseline, &QPushButton::clicked, this, [this] { m_session->setBaselineIndex(-1); });
    connect(m_remove, &QPushButton::clicked, this, &RunsPanel::removeSelected);
    rebuild();
}

void RunsPanel::rebuild()
{
    m_rebuilding = true;
    const int selected = m_list->currentRow();
    const QList<NamedRun>& runs = m_session->runs();
    // Items are updated in place when the count is unchanged: a rename arrives from inside the item's own edit, and
    // deleting the item there would pull it from under the view.
    if (m_list->count() != runs.size()) {
        m_list->clear();
        for (int index = 0; index < runs.size(); ++index) {
            auto* item = new QListWidgetItem(m_list);
            item->setFlags(item->flags() | Qt::ItemIsEditable);
        }
    }
    for (int index = 0; index < runs.size(); ++index) {
        const NamedRun& run = runs[index];
        QListWidgetItem* item = m_list->item(index);
        item->setData(kNameRole, run.name);
        QString details;
        if (run.evaluation) {
            item->setText(run.name);
            item->setData(Qt::ForegroundRole, {});
            details = QString::fromStdString(run.evaluation->label);
        } else if (run.isEvaluating()) {
            item->setText(tr("%1 — evaluating…").arg(run.name));
            item->setForeground(palette().color(QPalette::PlaceholderText));
            details = tr("Evaluating the run's documents again");
        } else {
            // Inline rather than in a dialog: the other runs stay usable, and the user sees which one broke.
            item->setText(tr("%1 — cannot evaluate: %2").arg(run.name, run.problem));
            item->setForeground(problemColor(palette()));
            details = tr("Its documents no longer evaluate: %1").arg(run.problem);
        }
        QFont font = item->font();
        font.setBold(index == m_session->baselineIndex());
        item->setFont(font);
        item->setToolTip(
            tr("%1\npinned %2").arg(details, QLocale().toString(run.pinnedAt.toLocalTime(), QLocale::ShortFormat)));
        if (index == m_session->baselineIndex()) {
            item->setToolTip(
                tr("Baseline: every chart compares against this run") + QLatin1Char('\n') + item->toolTip());
        }
    }
    m_list->setCurrentRow(qMin(selected, m_list->count() - 1));
    m_rebuilding = false;
    updateButtons();
}

void RunsPanel::itemEdited(QListWidgetItem* item)
{
    if (m_rebuilding) {
        return;
    }
    m_session->rename(m_list->row(item), item->text());
    rebuild(); // an unchanged name is no change in the session, but the item lost its state text to the editor
}

void RunsPanel::useSelectedAsBaseline()
{
    if (m_list->currentRow() >= 0) {
        m_session->setBaselineIndex(m_list->currentRow());
    }
}

void RunsPanel::removeSelected()
{
    m_session->remove(m_list->currentRow());
}

void RunsPanel::updateButtons()
{
    const bool selected = m_list->currentRow() >= 0;
    m_useAsBaseline->setEnabled(selected && m_list->currentRow() != m_session->baselineIndex());
    m_remove->setEnabled(selected);
    m_clearBaseline->setEnabled(m_session->baselineIndex() >= 0);
}

} // namespace rapid::widgets
