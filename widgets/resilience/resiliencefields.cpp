// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/resiliencefields.h"

#include "common/problemcolor.h"

#include <QComboBox>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace rapid::widgets {

namespace {

QLabel* createProblemLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    QPalette colours = label->palette();
    colours.setColor(QPalette::WindowText, problemColor(colours));
    label->setPalette(colours);
    label->hide();
    return label;
}

} // namespace

NumberListEdit::NumberListEdit(
    const QString& text, const NumberListRule& rule, const QString& objectName, QWidget* parent)
    : QWidget(parent)
    , m_rule(rule)
    , m_edit(new QLineEdit(text, this))
    , m_problem(createProblemLabel(this))
{
    setObjectName(objectName);
    m_edit->setObjectName(objectName + QStringLiteral("Edit"));
    m_problem->setObjectName(objectName + QStringLiteral("Problem"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_edit);
    layout->addWidget(m_problem);
    connect(m_edit, &QLineEdit::textChanged, this, &NumberListEdit::check);
    check();
}

std::optional<std::vector<double>> NumberListEdit::values() const
{
    return parseNumberList(m_edit->text(), m_rule, nullptr);
}

void NumberListEdit::check()
{
    QString problem;
    const bool valid = parseNumberList(m_edit->text(), m_rule, &problem).has_value();
    m_problem->setText(problem);
    m_problem->setVisible(!valid);
    if (valid != m_valid) {
        m_valid = valid;
        Q_EMIT validityChanged();
    }
}

LinkClassList::LinkClassList(const QString& objectName, QWidget* parent)
    : QWidget(parent)
    , m_list(new QListWidget(this))
    , m_problem(createProblemLabel(this))
{
    setObjectName(objectName);
    m_list->setObjectName(objectName + QStringLiteral("List"));
    m_problem->setObjectName(objectName + QStringLiteral("Problem"));
    m_problem->setText(tr("Check at least one class"));
    // A few rows: the networks have one to four classes (a torus one per axis).
    m_list->setMaximumHeight(m_list->fontMetrics().height() * 5 + 8);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_list);
    layout->addWidget(m_problem);
    connect(m_list, &QListWidget::itemChanged, this, [this] {
        m_problem->setText(tr("Check at least one class"));
        m_problem->setVisible(!isValid());
        Q_EMIT validityChanged();
    });
}

namespace {
constexpr int kClassNameRole = Qt::UserRole;
constexpr int kOptInRole = Qt::UserRole + 1;
} // namespace

void LinkClassList::setClasses(const std::vector<LinkClassEntry>& classes, const QString& problem)
{
    QHash<QString, Qt::CheckState> shownBefore;
    for (int row = 0; row < m_list->count(); ++row) {
        shownBefore.insert(m_list->item(row)->data(kClassNameRole).toString(), m_list->item(row)->checkState());
    }
    const QSignalBlocker blocker(m_list);
    m_list->clear();
    for (const LinkClassEntry& entry : classes) {
        const QString className = QString::fromStdString(entry.name);
        const QString text = entry.units == entry.links
            ? tr("%1 · %2 links").arg(className).arg(entry.links)
            : tr("%1 · %2 × %3 links").arg(className).arg(entry.units).arg(entry.links / std::max(1, entry.units));
        auto* item = new QListWidgetItem(text, m_list);
        item->setData(kClassNameRole, className);
        item->setData(kOptInRole, entry.optIn);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        if (entry.optIn) {
            item->setToolTip(
                tr("Each fault takes down all of one node's NIC links at once (an adapter or its cabling); "
                   "drawn only when checked, as rapid resilience --class"));
        }
        item->setCheckState(shownBefore.value(className, entry.optIn ? Qt::Unchecked : Qt::Checked));
    }
    // No classes at all (one GPU, no network): nothing to check, so say why rather than ask for a tick.
    const QString missing = classes.empty() ? tr("This hardware has no links to fail") : tr("Check at least one class");
    m_problem->setText(problem.isEmpty() ? missing : problem);
    m_problem->setVisible(!isValid());
    Q_EMIT validityChanged();
}

std::vector<std::string> LinkClassList::checkedClasses() const
{
    std::vector<std::string> names;
    bool exactlyTheDefault = true;
    for (int row = 0; row < m_list->count(); ++row) {
        const QListWidgetItem* item = m_list->item(row);
        const bool checked = item->checkState() == Qt::Checked;
        exactlyTheDefault = exactlyTheDefault && checked != item->data(kOptInRole).toBool();
        if (checked) {
            names.push_back(item->data(kClassNameRole).toString().toStdString());
        }
    }
    return exactlyTheDefault ? std::vector<std::string>() : names;
}

void LinkClassList::check(const std::vector<std::string>& names)
{
    for (int row = 0; row < m_list->count(); ++row) {
        QListWidgetItem* item = m_list->item(row);
        const std::string name = item->data(kClassNameRole).toString().toStdString();
        const bool checked = names.empty() ? !item->data(kOptInRole).toBool()
                                           : std::find(names.begin(), names.end(), name) != names.end();
        item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    }
}

bool LinkClassList::isValid() const
{
    for (int row = 0; row < m_list->count(); ++row) {
        if (m_list->item(row)->checkState() == Qt::Checked) {
            return true;
        }
    }
    return false;
}

QComboBox* createBackendCombo(const QString& objectName, QWidget* parent)
{
    auto* combo = new QComboBox(parent);
    combo->setObjectName(objectName);
    combo->addItem(QComboBox::tr("congestion"), static_cast<int>(sim::NetworkBackend::Congestion));
    combo->addItem(QComboBox::tr("analytical"), static_cast<int>(sim::NetworkBackend::Analytical));
    combo->setToolTip(QComboBox::tr("congestion: flows share the links they cross (slower, the CLI's default); "
                                    "analytical: each group's collectives on their routes without contention"));
    return combo;
}

sim::NetworkBackend backendOf(const QComboBox* combo)
{
    return static_cast<sim::NetworkBackend>(combo->currentData().toInt());
}

void chooseBackend(QComboBox* combo, sim::NetworkBackend backend)
{
    const int index = combo->findData(static_cast<int>(backend));
    if (index >= 0) {
        combo->setCurrentIndex(index);
    }
}

} // namespace rapid::widgets
