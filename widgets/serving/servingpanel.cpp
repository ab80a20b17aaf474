// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/servingpanel.h"

#include "common/inputscolumnlayout.h"
#include "common/problemcolor.h"
#include "editors/workspacedocument.h"
#include "resilience/jobcontrols.h"
#include "serving/servingcharts.h"
#include "serving/servingrunner.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace rapid::widgets {

namespace {

/// The texts a serving run depends on (pinned runs, the sweep set-up and the figure style do not change it).
bool sameInputs(const config::WorkspaceDocuments& a, const config::WorkspaceDocuments& b)
{
    return a.model.text == b.model.text && a.hardware.text == b.hardware.text && a.run.text == b.run.text
        && a.overrides == b.overrides;
}

QSpinBox* countSpin(const QString& objectName, int high, const QString& special, const QString& tip, QWidget* parent)
{
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(objectName);
    spin->setRange(0, high);
    spin->setSpecialValueText(special);
    spin->setToolTip(tip);
    spin->setKeyboardTracking(false);
    return spin;
}

/// A time in milliseconds from 0 (shown as "none") to @p high, to @p decimals places.
QDoubleSpinBox* millisecondsSpin(
    const QString& objectName, double high, int decimals, const QString& tip, QWidget* parent)
{
    auto* spin = new QDoubleSpinBox(parent);
    spin->setObjectName(objectName);
    spin->setRange(0, high);
    spin->setDecimals(decimals);
    spin->setSuffix(QObject::tr(" ms"));
    spin->setSpecialValueText(QObject::tr("none"));
    spin->setToolTip(tip);
    spin->setKeyboardTracking(false);
    return spin;
}

QDoubleSpinBox* sloSpin(const QString& objectName, const QString& tip, QWidget* parent)
{
    return millisecondsSpin(objectName, 1e6, 1, tip, parent);
}

/// A CPU time of the engine: up to an hour, as rapid serve accepts, to the microsecond.
QDoubleSpinBox* hostSpin(const QString& objectName, const QString& tip, QWidget* parent)
{
    return millisecondsSpin(objectName, 3.6e6, 3, tip, parent);
}

/// @p digits significant digits; whole numbers from 10^digits on (1910 ms, not 1.91e+03, which the column elides).
QString number(double value, int digits = 3)
{
    if (std::abs(value) >= std::pow(10.0, digits)) {
        return QString::number(value, 'f', 0);
    }
    return QString::number(value, 'g', digits);
}

} // namespace

ServingPanel::ServingPanel(WorkspaceDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_runner(new ServingRunner(this))
    , m_loadKind(new QComboBox(this))
    , m_loads(new QLineEdit(QStringLiteral("1, 2, 4, 8, 16, 32, 64"), this))
    , m_loadsProblem(new QLabel(this))
    , m_prompt(countSpin(QStringLiteral("servingPrompt"), 10'000'000, tr("the run's"),
          tr("Prompt tokens of every request (the run's: run.inference.prompt_length)"), this))
    , m_output(countSpin(QStringLiteral("servingOutput"), 10'000'000, tr("the run's"),
          tr("Output tokens of every request (the run's: run.inference.decode_length)"), this))
    , m_requests(countSpin(QStringLiteral("servingRequests"), 1'000'000, tr("default"),
          tr("Requests simulated per load (default: 10 per client, or 1,000 at a rate)"), this))
    , m_engine(new QComboBox(this))
    , m_capacityPolicy(new QComboBox(this))
    , m_ttftSlo(sloSpin(QStringLiteral("servingTtftSlo"), tr("Time-to-first-token limit of the goodput"), this))
    , m_itlSlo(sloSpin(QStringLiteral("servingItlSlo"), tr("Inter-token latency limit of the goodput"), this))
    , m_hostTime(hostSpin(QStringLiteral("servingHostTime"),
          tr("The engine's CPU time per iteration that the GPU model does not see: scheduling, building the "
             "inputs, processing the outputs (none by default: no engine publishes it for its current version)"),
          this))
    , m_hostPerRequest(hostSpin(QStringLiteral("servingHostPerRequest"),
          tr("The engine's CPU time per sequence in an iteration (output processing, streaming)"), this))
    , m_overlapHost(new QCheckBox(tr("Overlapped with the GPU"), this))
    , m_prefillWorkers(countSpin(QStringLiteral("servingPrefillWorkers"), 4096, tr("off"),
          tr("Disaggregated serving: prefill workers on the cluster's first GPUs (off: prefill and decode together)"),
          this))
    , m_decodeWorkers(countSpin(QStringLiteral("servingDecodeWorkers"), 4096, tr("off"),
          tr("Disaggregated serving: decode workers on the GPUs after the prefill workers"), this))
    , m_prefillTp(countSpin(QStringLiteral("servingPrefillTp"), 4096, tr("the run's"),
          tr("Tensor parallelism of a prefill worker (the run's: run.parallelism.tp)"), this))
    , m_decodeTp(countSpin(QStringLiteral("servingDecodeTp"), 4096, tr("the run's"),
          tr("Tensor parallelism of a decode worker (the run's: run.parallelism.tp)"), this))
    , m_poolsProblem(new QLabel(this))
    , m_controls(new JobControls(tr("Serve"), QStringLiteral("serving"), this))
    , m_chartTabs(new QTabWidget(this))
    , m_curveChart(new LatencyThroughputChart(this))
    , m_ttftChart(new PercentileChart(PercentileChart::Metric::Ttft, this))
    , m_itlChart(new PercentileChart(PercentileChart::Metric::Itl, this))
    , m_timelineChart(new RequestTimelineChart(this))
    , m_kvChart(new KvOccupancyChart(this))
    , m_table(new QTableWidget(this))
{
    setObjectName(QStringLiteral("servingPanel"));
    m_chartTabs->setObjectName(QStringLiteral("servingCharts"));
    m_chartTabs->addTab(m_curveChart, tr("Curve"));
    m_chartTabs->addTab(m_ttftChart, tr("TTFT"));
    m_chartTabs->addTab(m_itlChart, tr("ITL"));
    m_chartTabs->addTab(m_timelineChart, tr("Requests"));
    m_chartTabs->addTab(m_kvChart, tr("KV cache"));
    m_table->setObjectName(QStringLiteral("servingTable"));
    m_table->setColumnCount(9);
    // Two-line headers, so that the nine columns fit the table's width at 1280 x 720 without eliding.
    m_table->setHorizontalHeaderLabels({ tr("Load"), tr("tok/s\n/GPU"), tr("tok/s\n/user"), tr("TTFT\np50 ms"),
        tr("TTFT\np99 ms"), tr("ITL\np50 ms"), tr("ITL\np99 ms"), tr("SLO\nmet"), tr("Pre-\nempted") });
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->setToolTip(tr("Pick a load to see its requests and KV cache; * marks the Pareto front"));

    auto* results = new QSplitter(Qt::Vertical, this);
    results->addWidget(m_chartTabs);
    results->addWidget(m_table);
    results->setStretchFactor(0, 3);
    results->setStretchFactor(1, 1);
    // The table's nine two-line headers set how narrow the results may be beside the inputs.
    m_layout = new InputsColumnLayout(this, buildInputs(), results, [this] { return tableHeadersWidth(m_table); });

    connect(m_controls->runButton(), &QPushButton::clicked, this, &ServingPanel::run);
    connect(m_controls->cancelButton(), &QPushButton::clicked, m_runner, &ServingRunner::cancel);
    connect(m_runner, &ServingRunner::progressChanged, m_controls, &JobControls::setProgress);
    connect(m_runner, &ServingRunner::finished, this, &ServingPanel::showCurve);
    connect(m_runner, &ServingRunner::failed, this, [this](const QString& message) {
        m_controls->setRunning(false);
        m_note = tr("Failed: %1").arg(message);
        m_noteIsProblem = true;
        updateStatus();
    });
    connect(m_runner, &ServingRunner::cancelled, this, [this] {
        m_controls->setRunning(false);
        m_note = tr("Cancelled; the shown result (if any) is unchanged.");
        m_noteIsProblem = false;
        updateStatus();
    });
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { selectPoint(row); });
    connect(m_curveChart, &LatencyThroughputChart::pointClicked, this, [this](int point) {
        m_table->setCurrentCell(point, m_table->currentColumn() < 0 ? 0 : m_table->currentColumn());
    });
    connect(m_loads, &QLineEdit::textChanged, this, &ServingPanel::validateInputs);
    connect(m_loadKind, &QComboBox::currentIndexChanged, this, &ServingPanel::validateInputs);
    for (QSpinBox* workers : { m_prefillWorkers, m_decodeWorkers }) {
        connect(workers, &QSpinBox::valueChanged, this, &ServingPanel::validateInputs);
    }
    connectSettings();
    connect(m_document, &WorkspaceDocument::documentChanged, this, &ServingPanel::updateStatus);
    connect(m_document, &WorkspaceDocument::workspaceLoaded, this, [this] {
        m_runner->cancel();
        showCurve(nullptr);
        m_note.clear();
        updateStatus();
    });
    validateInputs();
}

QWidget* ServingPanel::buildInputs()
{
    m_loadKind->setObjectName(QStringLiteral("servingLoadKind"));
    m_loadKind->addItem(tr("Clients (closed loop)"));
    m_loadKind->addItem(tr("Requests/s (open loop)"));
    m_loadKind->setToolTip(tr("A closed loop of clients, each sending its next request when the last one ends (how "
                              "genai-perf and NIM benchmark), or arrivals at a rate: Poisson, or as bursty as "
                              "Burstiness says"));
    m_loads->setObjectName(QStringLiteral("servingLoads"));
    m_loads->setCursorPosition(0); // a narrow field shows the list from its first load
    m_loads->setToolTip(tr("The loads to serve at, separated by commas: whole clients, or requests per second"));
    m_loadsProblem->setObjectName(QStringLiteral("servingLoadsProblem"));
    m_loadsProblem->setWordWrap(true);
    QPalette problem = m_loadsProblem->palette();
    problem.setColor(QPalette::WindowText, problemColor(palette()));
    m_loadsProblem->setPalette(problem);
    m_engine->setObjectName(QStringLiteral("servingEngine"));
    m_engine->addItem(tr("vLLM V1"), static_cast<int>(serving::EngineProfile::Vllm));
    m_engine->addItem(tr("TensorRT-LLM"), static_cast<int>(serving::EngineProfile::TrtLlm));
    m_engine->addItem(tr("SGLang"), static_cast<int>(serving::EngineProfile::Sglang));
    m_engine->setToolTip(
        tr("Whose scheduler defaults (token budget, sequences per iteration, KV-cache share) and "
           "batching (SGLang runs prompt batches alone, vLLM and TensorRT-LLM mix them with decodes)"));

    m_capacityPolicy->setObjectName(QStringLiteral("servingCapacityPolicy"));
    m_capacityPolicy->addItem(tr("The engine's"), static_cast<int>(serving::CapacityPolicy::Auto));
    m_capacityPolicy->addItem(tr("Preempt if full"), static_cast<int>(serving::CapacityPolicy::MaxUtilization));
    m_capacityPolicy->addItem(tr("Reserve whole run"), static_cast<int>(serving::CapacityPolicy::GuaranteedNoEvict));
    m_capacityPolicy->addItem(tr("Reserve a share"), static_cast<int>(serving::CapacityPolicy::NewTokenRatio));
    m_capacityPolicy->setToolTip(
        tr("When a waiting request starts: when the KV-cache blocks of what it computes next are free, preempting "
           "the last admitted request if decodes later run out (vLLM; TensorRT-LLM's MAX_UTILIZATION); only when "
           "its whole prompt and output fit beside the running requests' reservations, never preempting "
           "(TensorRT-LLM's default, GUARANTEED_NO_EVICT); or when its prompt and output fit the free cache less a "
           "share of the running requests' remaining outputs that shrinks as they decode (SGLang's new_token_ratio)"));

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Load"), m_loadKind);
    form->addRow(tr("Loads"), m_loads);
    form->addRow(QString(), m_loadsProblem);
    createWorkloadFields();
    form->addRow(tr("Burstiness"), m_burstiness);
    form->addRow(tr("Prompt"), m_prompt);
    form->addRow(tr("Prompt spread"), m_promptSpread);
    form->addRow(tr("Output"), m_output);
    form->addRow(tr("Output spread"), m_outputSpread);
    form->addRow(tr("Prompt pool"), m_promptPool);
    form->addRow(tr("Requests"), m_requests);
    form->addRow(tr("Engine"), m_engine);
    form->addRow(tr("Admission"), m_capacityPolicy);
    addSchedulerRows(form);
    addSpeculationRows(form);
    form->addRow(tr("TTFT SLO"), m_ttftSlo);
    form->addRow(tr("ITL SLO"), m_itlSlo);
    m_overlapHost->setObjectName(QStringLiteral("servingOverlapHost"));
    m_overlapHost->setToolTip(tr("The engine prepares the next iteration while the GPU runs this one (vLLM V1 async "
                                 "scheduling; implied by the overlap scheduler): only host time beyond the GPU's "
                                 "shows"));
    form->addRow(tr("Host time"), m_hostTime);
    form->addRow(tr("Host / sequence"), m_hostPerRequest);
    form->addRow(QString(), m_overlapHost);
    m_poolsProblem->setObjectName(QStringLiteral("servingPoolsProblem"));
    m_poolsProblem->setWordWrap(true);
    m_poolsProblem->setPalette(problem);
    m_poolsProblem->setText(tr("Give both prefill and decode workers, or neither"));
    form->addRow(tr("Prefill workers"), m_prefillWorkers);
    form->addRow(tr("Decode workers"), m_decodeWorkers);
    form->addRow(QString(), m_poolsProblem);
    form->addRow(tr("Prefill TP"), m_prefillTp);
    form->addRow(tr("Decode TP"), m_decodeTp);
    auto* holder = new QWidget;
    auto* holderLayout = new QVBoxLayout(holder);
    holderLayout->setContentsMargins(0, 0, 4, 0);
    holderLayout->addLayout(form);
    holderLayout->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(holder);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* column = new QWidget(this);
    auto* columnLayout = new QVBoxLayout(column);
    columnLayout->setContentsMargins(0, 0, 0, 0);
    columnLayout->addWidget(scroll, 1);
    columnLayout->addWidget(m_controls);
    return column;
}

bool ServingPanel::inputsBesideResults() const
{
    return m_layout->inputsBeside();
}

std::optional<std::vector<double>> ServingPanel::parsedLoads() const
{
    const bool clients = m_loadKind->currentIndex() == 0;
    std::vector<double> loads;
    for (const QString& part : m_loads->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const double value = part.trimmed().toDouble(&ok);
        const bool valid = ok && std::isfinite(value)
            && (clients ? value >= 1 && value <= 100'000 && value == std::floor(value) : value > 0 && value <= 1e6);
        if (!valid) {
            return std::nullopt;
        }
        loads.push_back(value);
    }
    if (loads.empty() || loads.size() > 200) {
        return std::nullopt;
    }
    return loads;
}

void ServingPanel::validateInputs()
{
    const bool poolsValid = (m_prefillWorkers->value() == 0) == (m_decodeWorkers->value() == 0);
    m_poolsProblem->setVisible(!poolsValid);
    m_prefillTp->setEnabled(m_prefillWorkers->value() > 0);
    m_decodeTp->setEnabled(m_decodeWorkers->value() > 0);
    updateWorkloadFields();
    updateSpeculationFields();
    const bool valid = parsedLoads().has_value() && poolsValid && speculationValid();
    m_loadsProblem->setText(m_loadKind->currentIndex() == 0
            ? tr("Expected 1 to 200 whole client counts from 1 to 100,000, separated by commas")
            : tr("Expected 1 to 200 rates above 0 and at most 1e6 requests/s, separated by commas"));
    m_loadsProblem->setVisible(!parsedLoads().has_value());
    m_controls->runButton()->setEnabled(valid && !m_runner->isRunning());
}

bool ServingPanel::run()
{
    const std::optional<config::Scenario>& scenario = m_document->scenario();
    const std::optional<std::vector<double>> loads = parsedLoads();
    m_noteIsProblem = true;
    if (!scenario) {
        m_note = tr("Fix the configuration first (see Diagnostics): serving starts from a valid workspace.");
    } else if (scenario->run.mode != config::RunMode::Inference) {
        m_note = tr("run.mode is training: serving needs an inference run (File > New from Presets, a serve run).");
    } else if (!loads) {
        m_note = tr("Fix the loads first.");
    } else if ((m_prefillWorkers->value() == 0) != (m_decodeWorkers->value() == 0)) {
        m_note = tr("Give both prefill and decode workers, or neither.");
    } else if (!speculationValid()) {
        m_note = tr("Give the drafts' acceptance, 0 to 1.");
    } else {
        ServingRequest request;
        request.load = m_loadKind->currentIndex() == 0 ? serving::SweepLoad::Concurrency : serving::SweepLoad::Rate;
        request.loads = *loads;
        request.requestsPerPoint = m_requests->value();
        request.workload.promptTokens = m_prompt->value() > 0 ? m_prompt->value() : scenario->run.promptLength;
        request.workload.outputTokens = m_output->value() > 0 ? m_output->value() : scenario->run.decodeLength;
        applyWorkload(request.workload);
        request.options.profile = static_cast<serving::EngineProfile>(m_engine->currentData().toInt());
        request.options.capacityPolicy = static_cast<serving::CapacityPolicy>(m_capacityPolicy->currentData().toInt());
        applyScheduler(request.options);
        applySpeculation(request.options);
        request.slo.ttftSeconds = m_ttftSlo->value() / 1e3;
        request.slo.itlSeconds = m_itlSlo->value() / 1e3;
        request.options.host
            = { m_hostTime->value() / 1e3, m_hostPerRequest->value() / 1e3, m_overlapHost->isChecked() };
        request.prefillWorkers = m_prefillWorkers->value();
        request.decodeWorkers = m_decodeWorkers->value();
        request.prefillTp = m_prefillTp->value();
        request.decodeTp = m_decodeTp->value();
        m_runDocuments = m_document->documents();
        m_runner->run(*scenario, std::move(request));
        m_controls->setRunning(true);
        m_note = tr("Serving at %1 load(s)…").arg(loads->size());
        m_noteIsProblem = false;
        updateStatus();
        return true;
    }
    updateStatus();
    return false;
}

void ServingPanel::showCurve(const std::shared_ptr<const ServingCurve>& curve)
{
    m_curve = curve;
    m_controls->setRunning(false);
    m_resultDocuments = m_runDocuments;
    m_note.clear();
    for (ChartWidget* chart : charts()) {
        static_cast<ServingChart*>(chart)->setCurve(curve, 0);
    }
    fillTable();
    validateInputs();
    updateStatus();
}

void ServingPanel::fillTable()
{
    m_table->setRowCount(m_curve ? static_cast<int>(m_curve->results.size()) : 0);
    if (!m_curve) {
        return;
    }
    const bool clients = m_curve->load == serving::SweepLoad::Concurrency;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const serving::ServingSummary& s = m_curve->results[static_cast<size_t>(row)].summary;
        const double load = m_curve->loads[static_cast<size_t>(row)];
        const QStringList cells { (clients ? QString::number(load) : tr("%1/s").arg(number(load)))
                + (m_curve->pareto[static_cast<size_t>(row)] ? QStringLiteral(" *") : QString()),
            number(s.outputTokensPerSecondPerGpu, 4), number(s.outputTokensPerSecondPerUser, 4),
            number(s.ttft.p50 * 1e3), number(s.ttft.p99 * 1e3), number(s.itl.p50 * 1e3), number(s.itl.p99 * 1e3),
            QStringLiteral("%1%").arg(number(100 * s.sloAttainment)), QString::number(s.preemptions) };
        for (int column = 0; column < cells.size(); ++column) {
            m_table->setItem(row, column, new QTableWidgetItem(cells[column]));
        }
    }
    m_table->setCurrentCell(0, 0);
}

void ServingPanel::selectPoint(int point)
{
    if (!m_curve || point < 0) {
        return;
    }
    m_curveChart->setCurve(m_curve, point);
    m_timelineChart->setCurve(m_curve, point);
    m_kvChart->setCurve(m_curve, point);
}

bool ServingPanel::isStale() const
{
    return m_curve && !sameInputs(m_resultDocuments, m_document->documents());
}

void ServingPanel::updateStatus()
{
    QString text = m_note;
    bool problem = m_noteIsProblem;
    if (text.isEmpty() && m_curve) {
        const auto front = static_cast<int>(std::count(m_curve->pareto.begin(), m_curve->pareto.end(), true));
        const auto served = static_cast<int>(m_curve->results.size());
        text = (served == 1 ? tr("1 load served") : tr("%1 loads served").arg(served))
            + (m_curve->prefillWorkers > 0
                    ? tr(" on %1 prefill + %2 decode workers").arg(m_curve->prefillWorkers).arg(m_curve->decodeWorkers)
                    : QString())
            + tr(", %1 on the Pareto front.").arg(front) + workloadSummary(*m_curve);
        if (m_curve->prefillWorkers == 0 && !m_curve->results.empty()) {
            text += QLatin1Char(' ') + schedulerSummary(m_curve->results.front().options)
                + speculationSummary(m_curve->results.front().options);
        }
        if (isStale()) {
            text += QLatin1Char(' ') + tr("The workspace changed since: Serve again.");
            problem = true;
        }
    }
    m_controls->setStatus(text, problem);
}

QList<ChartWidget*> ServingPanel::charts() const
{
    return { m_curveChart, m_ttftChart, m_itlChart, m_timelineChart, m_kvChart };
}

QList<FigureDialog::Target> ServingPanel::figures() const
{
    QList<FigureDialog::Target> targets;
    for (ChartWidget* chart : charts()) {
        targets.append({ chart->title(), chart });
    }
    return targets;
}

QWidget* ServingPanel::currentFigure() const
{
    return m_chartTabs->currentWidget();
}

} // namespace rapid::widgets
