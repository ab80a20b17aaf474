// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphcontrols.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QVBoxLayout>

namespace rapid::widgets {

GraphControls::GraphControls(QAction* openAction, QWidget* parent)
    : QWidget(parent)
    , m_rank(new QComboBox(this))
    , m_fit(new QToolButton(this))
    , m_defects(new QToolButton(this))
    , m_popOut(new QToolButton(this))
    , m_filter(new QLineEdit(this))
    , m_idRange(new QLineEdit(this))
    , m_search(new QLineEdit(this))
    , m_searchCount(new QLabel(this))
    , m_summary(new QLabel(this))
{
    auto* openButton = new QToolButton(this);
    openButton->setDefaultAction(openAction);
    openButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_rank->setObjectName(QStringLiteral("rankChooser"));
    m_rank->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_rank->setEnabled(false);
    m_fit->setText(tr("Fit"));
    m_fit->setToolTip(tr("Show the whole graph (Ctrl+0); Ctrl+wheel zooms, dragging pans"));
    m_defects->setObjectName(QStringLiteral("graphDefectsButton"));
    m_defects->setText(tr("Defects"));
    m_defects->setEnabled(false);
    m_defects->setToolTip(tr("List what ASTRA-sim would reject or misread in these traces (rapid chakra inspect)"));
    m_popOut->setObjectName(QStringLiteral("graphPopOutButton"));
    m_summary->setObjectName(QStringLiteral("graphSummary"));
    m_summary->setWordWrap(true);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // may be long; never widens the panel

    m_filter->setObjectName(QStringLiteral("graphFilter"));
    m_filter->setPlaceholderText(tr("layer, micro-batch, backward, operator, COMP…"));
    m_filter->setToolTip(tr("Lay out only nodes whose name or type contains this text (any case)"));
    m_filter->setClearButtonEnabled(true);
    m_idRange->setObjectName(QStringLiteral("graphIdRange"));
    m_idRange->setPlaceholderText(tr("first-last"));
    m_idRange->setToolTip(tr("Lay out only nodes with ids in this range: 100-250, 100-, -250 or one id"));
    m_search->setObjectName(QStringLiteral("graphSearch"));
    m_search->setPlaceholderText(tr("name or id"));
    m_search->setToolTip(tr("Outline drawn nodes whose name, type or id matches; Enter shows the next one"));
    m_search->setClearButtonEnabled(true);
    m_searchCount->setObjectName(QStringLiteral("graphSearchCount"));

    auto* first = new QHBoxLayout;
    first->addWidget(openButton);
    first->addWidget(new QLabel(tr("Rank"), this));
    first->addWidget(m_rank);
    first->addWidget(m_fit);
    first->addWidget(m_defects);
    first->addStretch(1);
    first->addWidget(m_popOut);
    auto* second = new QHBoxLayout;
    second->addWidget(new QLabel(tr("Filter"), this));
    second->addWidget(m_filter, 3);
    second->addWidget(new QLabel(tr("Ids"), this));
    second->addWidget(m_idRange, 1);
    second->addWidget(new QLabel(tr("Search"), this));
    second->addWidget(m_search, 2);
    second->addWidget(m_searchCount);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(first);
    layout->addLayout(second);
    // A line of its own: what is drawn and how many defects the set has stay readable in a narrow panel.
    layout->addWidget(m_summary);
}

} // namespace rapid::widgets
