// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweeps/sweepaxeseditor.h"

#include "common/flowlayout.h"

#include "common/problemcolor.h"

#include "sweep/splitadaptation.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <stdexcept>

namespace rapid::widgets {

namespace {

// Red that stays legible on light and dark window backgrounds alike (as the form fields' problems).
const QStringList kSplitAxes
    = { QStringLiteral("tp"), QStringLiteral("pp"), QStringLiteral("dp"), QStringLiteral("cp") };

} // namespace

SweepAxesEditor::SweepAxesEditor(QWidget* parent)
    : QWidget(parent)
    , m_lines(new QVBoxLayout)
    , m_add(new QPushButton(tr("Add axis"), this))
    , m_splits(new QCheckBox(tr("Parallel splits over"), this))
    , m_maxTp(new QSpinBox(this))
    , m_splitsProblem(new QLabel(this))
{
    setObjectName(QStringLiteral("sweepAxesEditor"));
    m_lines->setContentsMargins(0, 0, 0, 0);
    m_lines->setSpacing(2);
    m_add->setObjectName(QStringLiteral("sweepAddAxisButton"));
    m_add->setToolTip(tr("Another KEY=VALUES line: every combination of the axes' values is evaluated"));
    m_splits->setObjectName(QStringLiteral("sweepSplitsCheck"));
    m_splits->setToolTip(tr("An axis of every way to split the hardware's GPUs over the checked parallel axes (their "
                            "product is the GPU count)"));
    m_splits->setChecked(true);
    m_maxTp->setObjectName(QStringLiteral("sweepMaxTpSpin"));
    m_maxTp->setRange(1, 1 << 20);
    m_maxTp->setValue(8);
    m_maxTp->setPrefix(tr("max tp "));
    m_maxTp->setToolTip(tr("Largest tensor-parallel degree of the splits (a node's NVLink domain by default)"));
    m_splitsProblem->setObjectName(QStringLiteral("sweepSplitsProblem"));
    m_splitsProblem->setWordWrap(true);
    m_splitsProblem->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_splitsProblem->hide();

    // Wraps in a narrow panel instead of holding the window as wide as the whole row.
    auto* splitsRow = new FlowLayout;
    splitsRow->setContentsMargins(0, 0, 0, 0);
    splitsRow->addWidget(m_splits);
    for (const QString& axis : kSplitAxes) {
        auto* check = new QCheckBox(axis, this);
        check->setObjectName(QStringLiteral("sweepSplitAxis:") + axis);
        check->setChecked(axis != QLatin1String("cp"));
        m_splitAxes.emplace_back(axis, check);
        splitsRow->addWidget(check);
        connect(check, &QCheckBox::toggled, this, &SweepAxesEditor::reparse);
        connect(check, &QCheckBox::clicked, this, &SweepAxesEditor::edited);
    }
    splitsRow->addWidget(m_maxTp);
    splitsRow->addWidget(m_splitsProblem);

    auto* addRow = new QHBoxLayout;
    addRow->setContentsMargins(0, 0, 0, 0);
    addRow->addWidget(m_add);
    addRow->addStretch();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(splitsRow);
    layout->addLayout(m_lines);
    layout->addLayout(addRow);

    connect(m_add, &QPushButton::clicked, this, &SweepAxesEditor::addLine);
    connect(m_splits, &QCheckBox::toggled, this, [this] {
        updateSplitsEnabled();
        reparse();
    });
    connect(m_splits, &QCheckBox::clicked, this, &SweepAxesEditor::edited);
    connect(m_maxTp, &QSpinBox::valueChanged, this, [this] {
        m_maxTpChosen = true;
        reparse();
        Q_EMIT edited(); // programmatic changes block the spin box's signals
    });
    addLine();
    updateSplitsEnabled();
    reparse();
}

QStringList SweepAxesEditor::lines() const
{
    QStringList result;
    for (const Row& row : m_rows) {
        result.append(row.edit->text());
    }
    return result;
}

void SweepAxesEditor::setLines(const QStringList& lines)
{
    while (!m_rows.empty()) {
        QWidget* container = m_rows.back().container;
        m_rows.pop_back();
        delete container;
    }
    for (const QString& line : lines) {
        QSignalBlocker block(this);
        addLine()->setText(line);
    }
    if (m_rows.empty()) {
        addLine();
    }
    reparse();
}

QLineEdit* SweepAxesEditor::addLine()
{
    Row row;
    row.container = new QWidget(this);
    row.edit = new QLineEdit(row.container);
    row.problem = new QLabel(row.container);
    row.remove = new QToolButton(row.container);
    const int line = static_cast<int>(m_rows.size());
    row.container->setObjectName(QStringLiteral("sweepAxisRow:%1").arg(line));
    row.edit->setObjectName(QStringLiteral("sweepAxisLine:%1").arg(line));
    row.edit->setPlaceholderText(tr("KEY=VALUES, e.g. run.training.micro_batch=1..8:x2 or "
                                    "run.training.recompute=none,selective,full"));
    row.edit->setClearButtonEnabled(true);
    row.problem->setObjectName(QStringLiteral("sweepAxisProblem:%1").arg(line));
    row.problem->setWordWrap(true);
    row.problem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row.problem->hide();
    row.remove->setText(QStringLiteral("✕"));
    row.remove->setToolTip(tr("Remove this axis"));
    row.remove->setAutoRaise(true);
    auto* layout = new QHBoxLayout(row.container);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(row.edit, 3);
    layout->addWidget(row.problem, 2);
    layout->addWidget(row.remove);
    m_lines->addWidget(row.container);
    row.container->show(); // now, not when the layout gets to it: the line is typed into at once
    m_rows.push_back(row);

    QWidget* container = row.container;
    connect(row.edit, &QLineEdit::textChanged, this, &SweepAxesEditor::reparse);
    connect(row.edit, &QLineEdit::textEdited, this, &SweepAxesEditor::edited);
    connect(row.edit, &QLineEdit::returnPressed, this, [this, container] {
        // Enter on the last line opens the next one, as in a list of lines.
        if (!m_rows.empty() && m_rows.back().container == container && !m_rows.back().edit->text().isEmpty()) {
            addLine();
        }
    });
    connect(row.remove, &QToolButton::clicked, this, [this, container] { removeLine(container); });
    row.edit->setFocus();
    reparse();
    return row.edit;
}

void SweepAxesEditor::removeLine(QWidget* container)
{
    const auto found = std::find_if(
        m_rows.begin(), m_rows.end(), [container](const Row& row) { return row.container == container; });
    if (found == m_rows.end()) {
        return;
    }
    if (m_rows.size() == 1) {
        found->edit->clear(); // the editor keeps one line to type into
        Q_EMIT edited();
        return;
    }
    m_rows.erase(found);
    container->deleteLater();
    reparse();
    Q_EMIT edited();
}

config::SweepSettings SweepAxesEditor::settings() const
{
    config::SweepSettings result;
    for (const Row& row : m_rows) {
        if (!row.edit->text().trimmed().isEmpty()) {
            result.axes.push_back(row.edit->text().toStdString());
        }
    }
    result.splits = m_splits->isChecked();
    result.splitAxes.clear();
    for (const auto& [name, check] : m_splitAxes) {
        if (check->isChecked()) {
            result.splitAxes.push_back(name.toStdString());
        }
    }
    result.maxTp = m_maxTpChosen ? m_maxTp->value() : 0;
    return result;
}

void SweepAxesEditor::setSettings(const config::SweepSettings& settings)
{
    {
        const QSignalBlocker quiet(this);
        QStringList lines;
        for (const std::string& line : settings.axes) {
            lines.append(QString::fromStdString(line));
        }
        setLines(lines);
        m_splits->setChecked(settings.splits);
        for (const auto& [name, check] : m_splitAxes) {
            const std::string axis = name.toStdString();
            check->setChecked(
                std::find(settings.splitAxes.begin(), settings.splitAxes.end(), axis) != settings.splitAxes.end());
        }
        if (settings.maxTp > 0) {
            const QSignalBlocker block(m_maxTp);
            m_maxTp->setValue(settings.maxTp);
        }
        m_maxTpChosen = settings.maxTp > 0;
    }
    updateSplitsEnabled();
    reparse();
}

QCheckBox* SweepAxesEditor::splitAxisCheck(const QString& axis) const
{
    for (const auto& [name, check] : m_splitAxes) {
        if (name == axis) {
            return check;
        }
    }
    return nullptr;
}

void SweepAxesEditor::setBase(const config::Scenario* scenario)
{
    // The splits adapt the mapping and virtual stages to each split (sweep::adaptSplits), from this scenario.
    const bool changed = static_cast<bool>(m_base) != (scenario != nullptr)
        || (scenario && (m_base->run != scenario->run || m_base->model.numLayers != scenario->model.numLayers));
    m_base = scenario ? std::optional<BaseRun> { BaseRun { scenario->model, scenario->run } } : std::nullopt;
    if (changed) {
        reparse();
    }
}

void SweepAxesEditor::setHardware(std::optional<int> gpus, int gpusPerNode)
{
    const bool changed = gpus != m_gpus;
    m_gpus = gpus;
    if (!m_maxTpChosen && gpusPerNode > 0 && m_maxTp->value() != gpusPerNode) {
        const QSignalBlocker block(m_maxTp);
        m_maxTp->setValue(gpusPerNode);
        reparse();
        return;
    }
    if (changed) {
        reparse();
    }
}

void SweepAxesEditor::updateSplitsEnabled()
{
    for (const auto& entry : m_splitAxes) {
        entry.second->setEnabled(m_splits->isChecked());
    }
    m_maxTp->setEnabled(m_splits->isChecked());
}

void SweepAxesEditor::showProblem(QLabel* label, const QString& problem)
{
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, problemColor(this->palette()));
    label->setPalette(palette);
    label->setText(problem);
    label->setToolTip(problem);
    label->setVisible(!problem.isEmpty());
}

void SweepAxesEditor::reparse()
{
    std::vector<sweep::SweepAxis> axes;
    bool valid = true;
    if (m_splits->isChecked()) {
        std::vector<std::string> names;
        for (const auto& [name, check] : m_splitAxes) {
            if (check->isChecked()) {
                names.push_back(name.toStdString());
            }
        }
        QString problem;
        if (!m_gpus) {
            problem = tr("needs a valid workspace (its GPU count)");
        } else if (names.empty()) {
            problem = tr("check at least one parallel axis");
        } else {
            try {
                axes.push_back(sweep::parallelSplits(*m_gpus, names, m_maxTp->value()));
                if (m_base) {
                    sweep::adaptSplits(axes.back(), m_base->model, m_base->run);
                }
                if (axes.back().values.empty()) {
                    problem = tr("no split of %1 GPUs keeps tp within %2").arg(*m_gpus).arg(m_maxTp->value());
                }
            } catch (const std::invalid_argument& error) {
                problem = QString::fromUtf8(error.what());
            }
        }
        showProblem(m_splitsProblem, problem);
        valid = problem.isEmpty();
    } else {
        showProblem(m_splitsProblem, {});
    }
    for (const Row& row : m_rows) {
        const QString text = row.edit->text().trimmed();
        QString problem;
        if (!text.isEmpty()) {
            try {
                axes.push_back(sweep::parseSweepAxis(text.toStdString()));
            } catch (const std::invalid_argument& error) {
                problem = QString::fromUtf8(error.what());
                valid = false;
            }
        }
        showProblem(row.problem, problem);
    }
    m_axes = std::move(axes);
    m_valid = valid;
    Q_EMIT axesChanged();
}

} // namespace rapid::widgets
