// SPDX-License-Identifier: GPL-3.0-or-later
#include "runsession.h"

namespace rapid::widgets {

RunSession::RunSession(QObject* parent)
    : QObject(parent)
{
}

int RunSession::add(const QString& name, const Evaluation& evaluation)
{
    m_runs.append({ uniqueName(name, -1), evaluation, QDateTime::currentDateTime() });
    Q_EMIT runsChanged();
    return count() - 1;
}

void RunSession::remove(int index)
{
    if (index < 0 || index >= count()) {
        return;
    }
    m_runs.removeAt(index);
    const int oldBaseline = m_baseline;
    if (m_baseline == index) {
        m_baseline = -1;
    } else if (m_baseline > index) {
        --m_baseline; // same run, new position: the charts need not change
    }
    Q_EMIT runsChanged();
    if (oldBaseline == index) {
        Q_EMIT baselineChanged();
    }
}

void RunSession::rename(int index, const QString& name)
{
    if (index < 0 || index >= count() || m_runs[index].name == name.trimmed()) {
        return;
    }
    m_runs[index].name = uniqueName(name, index);
    Q_EMIT runsChanged();
    if (index == m_baseline) {
        Q_EMIT baselineChanged();
    }
}

void RunSession::setBaselineIndex(int index)
{
    const int wanted = index >= 0 && index < count() ? index : -1;
    if (wanted != m_baseline) {
        m_baseline = wanted;
        Q_EMIT baselineChanged();
    }
}

const NamedRun* RunSession::baseline() const
{
    return m_baseline >= 0 ? &m_runs[m_baseline] : nullptr;
}

QString RunSession::uniqueName(const QString& wanted, int ignoredIndex) const
{
    const auto taken = [this, ignoredIndex](const QString& candidate) {
        for (int index = 0; index < count(); ++index) {
            if (index != ignoredIndex && m_runs[index].name == candidate) {
                return true;
            }
        }
        return false;
    };
    const QString base = wanted.trimmed().isEmpty() ? tr("Run") : wanted.trimmed();
    QString candidate = base;
    for (int number = 2; taken(candidate); ++number) {
        candidate = QStringLiteral("%1 (%2)").arg(base).arg(number);
    }
    return candidate;
}

} // namespace rapid::widgets
