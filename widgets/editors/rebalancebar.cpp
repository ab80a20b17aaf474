// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/rebalancebar.h"

#include "editors/workspacedocument.h"

#include "sweep/splitadaptation.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace rapid::widgets {

namespace {

/// A degree as the run document writes it, or 1 when absent or not a number (the loader reports those).
int degreeAt(const WorkspaceDocument& document, const char* axis)
{
    const std::optional<QString> text = document.valueAt(QStringLiteral("run.parallelism.") + QLatin1String(axis));
    bool ok = false;
    const int value = text ? text->trimmed().toInt(&ok) : 1;
    return ok && value > 0 ? value : 1;
}

/// The hardware's GPUs as its document writes them: the product of the network dimensions' sizes (0 when none
/// is readable).
long long hardwareGpus(const WorkspaceDocument& document)
{
    long long gpus = 1;
    int dimensions = 0;
    for (; dimensions < 16; ++dimensions) {
        const std::optional<QString> size
            = document.valueAt(QStringLiteral("hardware.cluster.network[%1].size").arg(dimensions));
        bool ok = false;
        const int value = size ? size->trimmed().toInt(&ok) : 0;
        if (!ok || value < 1) {
            break;
        }
        gpus *= value;
    }
    return dimensions > 0 ? gpus : 0;
}

} // namespace

std::optional<RebalanceOffer> rebalanceOffer(const WorkspaceDocument& document)
{
    if (document.scenario()) {
        return std::nullopt; // nothing to rebalance while the workspace loads
    }
    const int tp = degreeAt(document, "tp");
    const int pp = degreeAt(document, "pp");
    const int cp = degreeAt(document, "cp");
    const int dp = degreeAt(document, "dp");
    const long long gpus = hardwareGpus(document);
    const long long others = static_cast<long long>(tp) * pp * cp;
    if (gpus < 1 || others * dp == gpus || others > gpus || gpus % others != 0) {
        return std::nullopt;
    }
    const int wanted = static_cast<int>(gpus / others);
    sweep::SweepAxis axis { "split", { { "", {} } } };
    for (const auto& [name, degree] :
        { std::pair<const char*, int> { "tp", tp }, { "pp", pp }, { "dp", wanted }, { "cp", cp } }) {
        axis.values.front().assignments.push_back(
            std::string("run.parallelism.") + name + "=" + std::to_string(degree));
    }
    // The schedule, virtual stages and mapping adapt as a sweep's splits do, from the last scenario that loaded
    // (the model and the run as they were before the degrees changed).
    if (const std::optional<config::Scenario>& last = document.lastLoadedScenario()) {
        config::RunSpec base = last->run;
        base.parallelism.tp = tp;
        base.parallelism.pp = pp;
        base.parallelism.cp = cp;
        sweep::adaptSplits(axis, last->model, base);
    }
    const std::vector<std::string>& assignments = axis.values.front().assignments;
    if (!document.loadWith(assignments)) {
        return std::nullopt;
    }
    RebalanceOffer offer;
    offer.text = QObject::tr("tp %1 × pp %2 × cp %3 × dp %4 = %5 of the hardware's %6 GPUs.")
                     .arg(tp)
                     .arg(pp)
                     .arg(cp)
                     .arg(dp)
                     .arg(others * dp)
                     .arg(gpus);
    QStringList parts { QObject::tr("set dp to %1").arg(wanted) };
    for (const std::string& assignment : assignments) {
        const auto equals = assignment.find('=');
        const QString key = QString::fromStdString(assignment.substr(0, equals));
        const QString value = QString::fromStdString(assignment.substr(equals + 1));
        if (key == QLatin1String("run.parallelism.virtual_stages")) {
            parts.append(QObject::tr("virtual stages to %1").arg(value));
        } else if (key == QLatin1String("run.parallelism.schedule")) {
            parts.append(QObject::tr("the schedule to %1").arg(value));
        } else if (key == QLatin1String("run.parallelism.mapping")) {
            parts.append(QObject::tr("the default network mapping"));
        } else if (key == QLatin1String("run.parallelism.layers_per_stage")) {
            parts.append(QObject::tr("even layers per stage"));
        }
        offer.values.append({ key, value });
    }
    QString action = parts.join(QStringLiteral(", "));
    action[0] = action[0].toUpper();
    offer.action = action;
    return offer;
}

RebalanceBar::RebalanceBar(WorkspaceDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_text(new QLabel(this))
    , m_apply(new QPushButton(this))
{
    setObjectName(QStringLiteral("rebalanceBar"));
    m_text->setWordWrap(true);
    m_apply->setObjectName(QStringLiteral("rebalanceButton"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_apply);
    connect(m_apply, &QPushButton::clicked, this, &RebalanceBar::apply);
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this, &RebalanceBar::refresh);
    refresh();
}

void RebalanceBar::refresh()
{
    m_offer = rebalanceOffer(*m_document);
    setVisible(m_offer.has_value());
    if (m_offer) {
        m_text->setText(m_offer->text);
        m_apply->setText(m_offer->action);
        m_apply->setToolTip(tr("One undoable edit (Ctrl+Z)"));
    }
}

void RebalanceBar::apply()
{
    if (m_offer) {
        // A copy: every edit re-checks the workspace, and the bar replaces its offer while the edits are written.
        const QList<std::pair<QString, QString>> values = m_offer->values;
        m_document->setValues(values, tr("Rebalance the parallel degrees"));
    }
}

} // namespace rapid::widgets
