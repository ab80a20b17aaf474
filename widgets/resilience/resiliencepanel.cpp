// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/resiliencepanel.h"

#include "resilience/criticalitymap.h"
#include "resilience/criticalitypage.h"
#include "resilience/faultstudypage.h"
#include "resilience/goodputpage.h"
#include "resilience/resiliencecharts.h"
#include "resilience/stragglerpage.h"

#include <QTabWidget>
#include <QVBoxLayout>

namespace rapid::widgets {

ResiliencePanel::ResiliencePanel(WorkspaceDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_pages(new QTabWidget(this))
    , m_faultStudy(new FaultStudyPage(document, m_pages))
    , m_criticality(new CriticalityPage(document, m_pages))
    , m_stragglers(new StragglerPage(document, m_pages))
    , m_goodput(new GoodputPage(document, m_pages))
{
    setObjectName(QStringLiteral("resiliencePanel"));
    m_pages->setObjectName(QStringLiteral("resiliencePages"));
    m_pages->setDocumentMode(true);
    m_pages->addTab(m_faultStudy, tr("Fault study"));
    m_pages->addTab(m_criticality, tr("Criticality map"));
    m_pages->addTab(m_stragglers, tr("Stragglers"));
    m_pages->addTab(m_goodput, tr("Goodput"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);
}

QList<ChartWidget*> ResiliencePanel::charts() const
{
    return { m_faultStudy->chart(), m_stragglers->chart(), m_goodput->chart() };
}

QList<FigureDialog::Target> ResiliencePanel::figures() const
{
    return { { m_faultStudy->chart()->title(), m_faultStudy->chart() },
        { tr("Criticality map"), m_criticality->mapView() }, { m_stragglers->chart()->title(), m_stragglers->chart() },
        { m_goodput->chart()->title(), m_goodput->chart() } };
}

QWidget* ResiliencePanel::currentFigure() const
{
    const QList<FigureDialog::Target> all = figures();
    const int page = m_pages->currentIndex();
    return page >= 0 && page < all.size() ? all[page].widget.data() : nullptr;
}

} // namespace rapid::widgets
