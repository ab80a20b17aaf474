// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "resilience/resiliencefields.h"
#include "resilience/studyrowspage.h"

class QComboBox;
class QSpinBox;

namespace rapid::widgets {

class LinkClassList;
class NumberListEdit;
class SlowdownCdfChart;

/// The Resilience tab's fault study (`rapid resilience --faulty-links K --health H`): for every k and h, trials
/// that each degrade k random links of the checked classes to health h; the slowdown CDFs per (k, h) and a table of
/// the connected and cut-off trials, mean, p50, p90, p99 and max.
class FaultStudyPage : public StudyRowsPage {
    Q_OBJECT
public:
    explicit FaultStudyPage(WorkspaceDocument* document, QWidget* parent = nullptr);

    bool run() override;
    NumberListEdit* faultyLinksEdit() const { return m_faultyLinks; }
    NumberListEdit* healthEdit() const { return m_health; }
    LinkClassList* classList() const { return m_classes; }
    QSpinBox* trialsSpin() const { return m_trials; }
    QSpinBox* seedSpin() const { return m_seed; }
    QComboBox* backendCombo() const { return m_backend; }
    SlowdownCdfChart* chart() const { return m_chart; }

protected:
    void showStudy(const StudyRows& rows) override;
    void clearChart() override;
    void showInputsOf(const StudyRows& rows) override;
    void scenarioUpdated(const config::Scenario& scenario) override;

private:
    void updateValidity();

    NumberListEdit* m_faultyLinks;
    NumberListEdit* m_health;
    LinkClassList* m_classes;
    QSpinBox* m_trials;
    QSpinBox* m_seed;
    QComboBox* m_backend;
    SlowdownCdfChart* m_chart;
    std::string m_hardwareText; ///< the hardware whose classes are listed
};

/// "1.2345": a slowdown as the tables show it.
QString slowdownText(double slowdown);
/// The classes of @p scenario's network with their link counts; none, and @p problem set, when the network cannot
/// be built (a fault on a link it does not have: the loader checks the keys, the topology the links).
std::vector<LinkClassEntry> classesOf(const config::Scenario& scenario, QString* problem);

} // namespace rapid::widgets
