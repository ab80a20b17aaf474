// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/figuredialog.h"

#include "config/workspacefile.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace rapid::serving {
struct EngineOptions;
struct WorkloadSpec;
} // namespace rapid::serving

namespace rapid::widgets {

class ChartWidget;
class InputsColumnLayout;
class JobControls;
class KvOccupancyChart;
class LatencyThroughputChart;
class PercentileChart;
class RequestTimelineChart;
class ServingRunner;
class WorkspaceDocument;
struct ServingCurve;

/// The Serving tab (issue #17): the workspace's inference run served under load, as `rapid serve` does, at every
/// load of a list (closed-loop clients or Poisson arrivals), aggregated or on prefill and decode pools: the
/// latency-throughput curve with its Pareto front and the ITL SLO, TTFT and ITL percentiles against the load with the
/// SLOs, and for the load picked in the table its request timeline and KV-cache occupancy. Runs in the background with
/// progress and Cancel; a result says when edits have made it stale. Every chart is a figure of File > Export Figure.
class ServingPanel : public QWidget {
    Q_OBJECT
public:
    explicit ServingPanel(WorkspaceDocument* document, QWidget* parent = nullptr);

    QComboBox* loadKindCombo() const { return m_loadKind; }
    QLineEdit* loadsEdit() const { return m_loads; }
    QSpinBox* promptSpin() const { return m_prompt; }
    QSpinBox* outputSpin() const { return m_output; }
    QSpinBox* requestsSpin() const { return m_requests; }
    QDoubleSpinBox* burstinessSpin() const { return m_burstiness; }
    QDoubleSpinBox* promptSpreadSpin() const { return m_promptSpread; }
    QDoubleSpinBox* outputSpreadSpin() const { return m_outputSpread; }
    QSpinBox* promptPoolSpin() const { return m_promptPool; }
    QComboBox* engineCombo() const { return m_engine; }
    QComboBox* capacityPolicyCombo() const { return m_capacityPolicy; }
    QDoubleSpinBox* ttftSloSpin() const { return m_ttftSlo; }
    QDoubleSpinBox* itlSloSpin() const { return m_itlSlo; }
    QDoubleSpinBox* hostTimeSpin() const { return m_hostTime; }
    QDoubleSpinBox* hostPerRequestSpin() const { return m_hostPerRequest; }
    QCheckBox* overlapHostCheck() const { return m_overlapHost; }
    QSpinBox* prefillWorkersSpin() const { return m_prefillWorkers; }
    QSpinBox* decodeWorkersSpin() const { return m_decodeWorkers; }
    QSpinBox* prefillTpSpin() const { return m_prefillTp; }
    QSpinBox* decodeTpSpin() const { return m_decodeTp; }
    QSpinBox* maxNumSeqsSpin() const { return m_maxNumSeqs; }
    QSpinBox* maxBatchedTokensSpin() const { return m_maxBatchedTokens; }
    QCheckBox* chunkedPrefillCheck() const { return m_chunkedPrefill; }
    QSpinBox* blockSizeSpin() const { return m_blockSize; }
    QSpinBox* maxPrefillTokensSpin() const { return m_maxPrefillTokens; }
    QDoubleSpinBox* memoryShareSpin() const { return m_memoryShare; }
    QComboBox* batchingCombo() const { return m_batching; }
    QComboBox* overlapSchedulerCombo() const { return m_overlapScheduler; }
    QComboBox* preemptionCombo() const { return m_preemption; }
    QDoubleSpinBox* swapSpaceSpin() const { return m_swapSpace; }
    QSpinBox* draftTokensSpin() const { return m_draftTokens; }
    QDoubleSpinBox* acceptanceSpin() const { return m_acceptance; }
    QComboBox* acceptanceKindCombo() const { return m_acceptanceKind; }
    QComboBox* draftCombo() const { return m_draft; }
    QSpinBox* draftLayersSpin() const { return m_draftLayers; }
    QLabel* speculationProblemLabel() const { return m_speculationProblem; }
    JobControls* controls() const { return m_controls; }
    ServingRunner* runner() const { return m_runner; }
    QTableWidget* table() const { return m_table; }
    QTabWidget* chartTabs() const { return m_chartTabs; }
    LatencyThroughputChart* curveChart() const { return m_curveChart; }
    PercentileChart* ttftChart() const { return m_ttftChart; }
    PercentileChart* itlChart() const { return m_itlChart; }
    RequestTimelineChart* timelineChart() const { return m_timelineChart; }
    KvOccupancyChart* kvChart() const { return m_kvChart; }
    QList<ChartWidget*> charts() const;
    QList<FigureDialog::Target> figures() const;
    /// The chart on the chart tab shown now.
    QWidget* currentFigure() const;
    const ServingCurve* curve() const { return m_curve.get(); }
    bool isStale() const;
    /// The inputs as the workspace keeps them (`serving:`).
    config::ServingSettings settings() const;
    /// The loads typed, or nullopt (the reason under the field) when they are not a list of valid loads.
    std::optional<std::vector<double>> parsedLoads() const;
    /// Whether the inputs stand in a column beside the charts and table (a wide panel) or above them (a narrow one).
    bool inputsBesideResults() const;

public Q_SLOTS:
    /// Serves the workspace at every load; false (the status line says why) when it or an input is not valid.
    bool run();

private:
    QWidget* buildInputs();
    void showCurve(const std::shared_ptr<const ServingCurve>& curve);
    void fillTable();
    void selectPoint(int point);
    void validateInputs();
    void updateStatus();
    /// Keeps the inputs with the workspace (an undoable edit) when they differ from what it has.
    void storeSettings();
    /// Shows the workspace's serving set-up in the inputs (after an undo, or a workspace opened or restored).
    void showSettings();
    void connectSettings();
    /// The workload's random draws (servingworkload.cpp): arrival gaps' burstiness (a rate's alone: greyed out for
    /// clients) and the lengths' standard deviations, and what a run takes from them.
    void createWorkloadFields();
    void updateWorkloadFields();
    void applyWorkload(serving::WorkloadSpec& workload) const;
    /// How a run's arrivals and lengths were drawn, for the status line (empty for Poisson or clients and alike
    /// lengths).
    static QString workloadSummary(const ServingCurve& curve);
    /// The engine's scheduler knobs (servingscheduler.cpp): their rows of the inputs' form, what a run takes from them.
    void addSchedulerRows(QFormLayout* form);
    void applyScheduler(serving::EngineOptions& options) const;
    /// SGLang's prefill budget is SGLang's alone: greyed out for the other engines.
    void updateSchedulerFields();
    /// Whether the engine and batching chosen can swap preempted requests (vLLM with mixed batches).
    bool swapping() const;
    /// What "the engine's" knobs came to (the options as used): the status line says it after a run.
    static QString schedulerSummary(const serving::EngineOptions& used);
    /// Speculative decoding (servingspeculation.cpp): its rows of the inputs' form, whether the acceptance a run needs
    /// is given, the fields it greys out, what a run takes from them and what the status line says of them.
    void addSpeculationRows(QFormLayout* form);
    bool speculationValid() const;
    void updateSpeculationFields();
    void applySpeculation(serving::EngineOptions& options) const;
    static QString speculationSummary(const serving::EngineOptions& used);
    /// The acceptance as ServingSettings keeps it, per draft or as the mean length (negative: not set or given the
    /// other way), and back.
    double acceptanceSetting() const;
    double acceptanceLengthSetting() const;
    void showAcceptance(double acceptance, double meanLength);
    /// The acceptance spin's range, steps and words for a probability or a mean length.
    void setAcceptanceKind(bool meanLength);
    /// The kind chosen by the user: the value shown becomes the same drafts' value of that kind.
    void convertAcceptance(int kind);
    bool acceptanceIsLength() const;

    WorkspaceDocument* m_document;
    ServingRunner* m_runner;
    QComboBox* m_loadKind;
    QLineEdit* m_loads;
    QLabel* m_loadsProblem;
    QSpinBox* m_prompt;
    QSpinBox* m_output;
    QSpinBox* m_requests;
    QDoubleSpinBox* m_burstiness = nullptr; ///< the gamma shape of a rate's arrival gaps; 1: Poisson
    QDoubleSpinBox* m_promptSpread = nullptr; ///< standard deviations of the lengths, tokens; 0: all alike
    QDoubleSpinBox* m_outputSpread = nullptr;
    QSpinBox* m_promptPool = nullptr; ///< distinct prompts the requests are drawn from; 0: every prompt its own
    QComboBox* m_engine;
    QComboBox* m_capacityPolicy; ///< items in the order of config::kCapacityPolicyWords
    QDoubleSpinBox* m_ttftSlo;
    QDoubleSpinBox* m_itlSlo;
    QDoubleSpinBox* m_hostTime; ///< the engine's CPU time per iteration, ms (serving::HostCost)
    QDoubleSpinBox* m_hostPerRequest; ///< and per sequence, ms
    QCheckBox* m_overlapHost;
    QSpinBox* m_prefillWorkers; ///< 0: aggregated serving
    QSpinBox* m_decodeWorkers;
    QSpinBox* m_prefillTp; ///< 0: the run's tp
    QSpinBox* m_decodeTp;
    QLabel* m_poolsProblem;
    // The scheduler knobs; 0 (or the engine's word) takes the engine's default for the GPU.
    QSpinBox* m_maxNumSeqs = nullptr;
    QSpinBox* m_maxBatchedTokens = nullptr;
    QCheckBox* m_chunkedPrefill = nullptr;
    QSpinBox* m_blockSize = nullptr;
    QSpinBox* m_maxPrefillTokens = nullptr;
    QDoubleSpinBox* m_memoryShare = nullptr;
    QComboBox* m_batching = nullptr; ///< items in the order of config::kBatchingWords
    QComboBox* m_overlapScheduler = nullptr; ///< items in the order of config::kOverlapSchedulerWords
    QComboBox* m_preemption = nullptr; ///< items in the order of config::kPreemptionWords; vLLM only
    QDoubleSpinBox* m_swapSpace = nullptr; ///< GiB per GPU for swapped KV blocks
    // Speculative decoding; off with 0 draft tokens.
    QSpinBox* m_draftTokens = nullptr;
    QDoubleSpinBox* m_acceptance = nullptr; ///< its minimum, below the kind's least value, is "not set"
    QComboBox* m_acceptanceKind = nullptr; ///< the acceptance per draft (0) or the mean acceptance length (1)
    QComboBox* m_draft = nullptr; ///< items in the order of config::kDraftWords
    QSpinBox* m_draftLayers = nullptr;
    QLabel* m_speculationProblem = nullptr;
    JobControls* m_controls;
    QTabWidget* m_chartTabs;
    LatencyThroughputChart* m_curveChart;
    PercentileChart* m_ttftChart;
    PercentileChart* m_itlChart;
    RequestTimelineChart* m_timelineChart;
    KvOccupancyChart* m_kvChart;
    QTableWidget* m_table;
    InputsColumnLayout* m_layout = nullptr; ///< the inputs beside the results, or above them in a narrow panel
    std::shared_ptr<const ServingCurve> m_curve;
    QString m_note; ///< why the last run gave no result, or what runs now
    bool m_noteIsProblem = false;
    config::WorkspaceDocuments m_runDocuments;
    config::WorkspaceDocuments m_resultDocuments;
};

} // namespace rapid::widgets
