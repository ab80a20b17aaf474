// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/linkhealtheditor.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

constexpr int kSliderSteps = 100; ///< the slider counts hundredths, the spin box's two decimals
constexpr int kListedLinks = 6; ///< ids listed by name before "and N more"

} // namespace

LinkHealthEditor::LinkHealthEditor(QWidget* parent)
    : QWidget(parent)
    , m_selection(new QLabel(this))
    , m_slider(new QSlider(Qt::Horizontal, this))
    , m_spin(new QDoubleSpinBox(this))
    , m_apply(new QPushButton(tr("Apply"), this))
    , m_fail(new QPushButton(tr("Fail"), this))
    , m_restore(new QPushButton(tr("Restore"), this))
    , m_note(new QLabel(this))
{
    setObjectName(QStringLiteral("linkHealthEditor"));
    m_selection->setObjectName(QStringLiteral("linkSelection"));
    m_selection->setWordWrap(true);
    m_selection->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_slider->setObjectName(QStringLiteral("linkHealthSlider"));
    m_slider->setRange(0, kSliderSteps);
    m_slider->setPageStep(10);
    m_spin->setObjectName(QStringLiteral("linkHealthSpin"));
    m_spin->setRange(0.0, 1.0);
    m_spin->setDecimals(2);
    m_spin->setSingleStep(0.05);
    m_apply->setObjectName(QStringLiteral("linkApplyButton"));
    m_apply->setToolTip(
        tr("Set the health of the selected links: it multiplies their bandwidth (1 removes the fault)"));
    m_fail->setObjectName(QStringLiteral("linkFailButton"));
    m_fail->setToolTip(tr("Fail the selected links (health 0): routes avoid them"));
    m_restore->setObjectName(QStringLiteral("linkRestoreButton"));
    m_restore->setToolTip(tr("Remove the faults of the selected links"));
    m_note->setObjectName(QStringLiteral("linkEditorNote"));
    m_note->setWordWrap(true);
    QFont small = m_note->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_note->setFont(small);

    auto* title = new QLabel(tr("Link health"), this);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    auto* healthRow = new QHBoxLayout;
    healthRow->addWidget(m_slider, 1);
    healthRow->addWidget(m_spin);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_apply);
    buttons->addWidget(m_fail);
    buttons->addWidget(m_restore);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(title);
    layout->addWidget(m_selection);
    layout->addLayout(healthRow);
    layout->addLayout(buttons);
    layout->addWidget(m_note);

    // Each side moves only the other one. The spin box reports every keystroke that parses (keyboard tracking):
    // writing the value back into it then would rewrite "0" as "0.00" under the user's fingers, and the "." and "5"
    // typed next would no longer fit (issue #18: typing 0.5 gave 0.00, and Apply failed the link).
    connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
        if (!m_syncing) {
            setHealth(value / static_cast<double>(kSliderSteps));
        }
    });
    connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        if (!m_syncing) {
            m_syncing = true;
            m_slider->setValue(static_cast<int>(std::lround(value * kSliderSteps)));
            m_syncing = false;
        }
    });
    connect(m_apply, &QPushButton::clicked, this, [this] { Q_EMIT healthRequested(health()); });
    connect(m_fail, &QPushButton::clicked, this, [this] { Q_EMIT healthRequested(0.0); });
    connect(m_restore, &QPushButton::clicked, this, &LinkHealthEditor::restoreRequested);
    setHealth(1.0);
    updateState();
}

void LinkHealthEditor::setLinks(const QList<Link>& links)
{
    m_links = links;
    double lowest = 1.0;
    for (const Link& link : links) {
        lowest = std::min(lowest, link.health);
    }
    setHealth(lowest);
    updateState();
}

void LinkHealthEditor::setBlockedReason(const QString& reason)
{
    m_blockedReason = reason;
    updateState();
}

double LinkHealthEditor::health() const
{
    return m_spin->value();
}

void LinkHealthEditor::setHealth(double health)
{
    const double rounded = std::round(std::clamp(health, 0.0, 1.0) * kSliderSteps) / kSliderSteps;
    m_syncing = true;
    m_spin->setValue(rounded);
    m_slider->setValue(static_cast<int>(std::lround(rounded * kSliderSteps)));
    m_syncing = false;
}

void LinkHealthEditor::updateState()
{
    int writable = 0;
    bool anyFault = false;
    QStringList names;
    for (const Link& link : std::as_const(m_links)) {
        writable += link.writable ? 1 : 0;
        anyFault = anyFault || (link.writable && link.health < 1);
        if (names.size() < kListedLinks) {
            names.append(
                link.health < 1 ? tr("%1 (health %2)").arg(link.id, QString::number(link.health, 'f', 2)) : link.id);
        }
    }
    if (m_links.isEmpty()) {
        m_selection->setText(tr("Click a link to select it; Shift+click adds more."));
    } else {
        const QString heading
            = m_links.size() == 1 ? tr("1 link selected:") : tr("%1 links selected:").arg(m_links.size());
        QString text = heading + QLatin1Char('\n') + names.join(QLatin1Char('\n'));
        if (m_links.size() > kListedLinks) {
            text += QLatin1Char('\n') + tr("and %1 more").arg(m_links.size() - kListedLinks);
        }
        m_selection->setText(text);
    }
    const bool editable = m_blockedReason.isEmpty() && writable > 0;
    m_slider->setEnabled(editable);
    m_spin->setEnabled(editable);
    m_apply->setEnabled(editable);
    m_fail->setEnabled(editable);
    m_restore->setEnabled(editable && anyFault);
    if (!m_blockedReason.isEmpty()) {
        m_note->setText(m_blockedReason);
    } else if (writable < m_links.size()) {
        m_note->setText(tr("%1 of the selected links belong to another instance than instance 0 (ids with “@”): "
                           "the hardware loader does not read faults on those yet, so they are left out.")
                            .arg(m_links.size() - writable));
    } else {
        m_note->setText(tr("Faults go into the hardware YAML; Ctrl+Z undoes them."));
    }
}

} // namespace rapid::widgets
