// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/collectiverunbox.h"

#include "common/problemcolor.h"

#include "editors/workspacedocument.h"

#include "config/units.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace rapid::widgets {

namespace {

constexpr int kComboCharacters = 12; ///< combos shrink to this many characters so the side column keeps its width

// Red that stays legible on light and dark window backgrounds alike (as the form fields' problems).
QString quantity(double value, config::Dimension dimension)
{
    return QString::fromStdString(config::formatQuantity(value, dimension));
}

/// A size typed by the user, in bytes; std::nullopt with the reason in @p why.
std::optional<double> parseBytes(const QString& text, QString* why)
{
    std::string reason;
    const std::optional<double> bytes
        = config::parseQuantity(text.trimmed().toStdString(), config::Dimension::Bytes, &reason);
    if (!bytes) {
        *why = QString::fromStdString(reason);
    } else if (*bytes < 0) {
        *why = QCoreApplication::translate("CollectiveRunBox", "must not be negative");
        return std::nullopt;
    }
    return bytes;
}

QLabel* problemLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->hide();
    return label;
}

void showProblem(QLabel* label, const QString& problem)
{
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, problemColor(label->parentWidget()->palette()));
    label->setPalette(palette);
    label->setText(problem);
    label->setVisible(!problem.isEmpty());
}

QComboBox* compactCombo(QWidget* parent)
{
    auto* combo = new QComboBox(parent);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(kComboCharacters);
    return combo;
}

} // namespace

CollectiveRunBox::CollectiveRunBox(WorkspaceDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_runner(new CollectiveRunner(this))
    , m_operation(compactCombo(this))
    , m_size(new QLineEdit(QStringLiteral("64 MiB"), this))
    , m_sizeProblem(problemLabel(this))
    , m_group(compactCombo(this))
    , m_backend(compactCombo(this))
    , m_packetRow(new QWidget(this))
    , m_packetSize(new QLineEdit(QStringLiteral("4 KiB"), m_packetRow))
    , m_packetProblem(problemLabel(m_packetRow))
    , m_run(new QPushButton(tr("Run collective"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_progress(new QProgressBar(this))
    , m_status(new QLabel(this))
    , m_result(new QWidget(this))
    , m_time(new QLabel(m_result))
    , m_algorithm(new QLabel(m_result))
    , m_bandwidth(new QLabel(m_result))
    , m_links(new QLabel(m_result))
{
    describeFields();

    auto* packetLayout = new QVBoxLayout(m_packetRow);
    packetLayout->setContentsMargins(0, 0, 0, 0);
    packetLayout->addWidget(m_packetSize);
    packetLayout->addWidget(m_packetProblem);
    auto* sizeColumn = new QVBoxLayout;
    sizeColumn->addWidget(m_size);
    sizeColumn->addWidget(m_sizeProblem);
    auto* form = new QFormLayout;
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Operation"), m_operation);
    form->addRow(tr("Size"), sizeColumn);
    form->addRow(tr("Group"), m_group);
    form->addRow(tr("Backend"), m_backend);
    form->addRow(tr("Packet"), m_packetRow);
    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(m_run, 1);
    buttons->addWidget(m_cancel);
    auto* resultForm = new QFormLayout(m_result);
    resultForm->setContentsMargins(0, 0, 0, 0);
    resultForm->addRow(tr("Time"), m_time);
    resultForm->addRow(tr("Algorithm"), m_algorithm);
    resultForm->addRow(tr("Bandwidth"), m_bandwidth);
    resultForm->addRow(tr("Busiest"), m_links);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_result);
    m_result->hide();
    showRunning(false);

    connectSignals(form);
    form->setRowVisible(m_packetRow, false);
    updateGroups();
    validate();
}

/// Object names, choices, tooltips and fonts of the box's fields.
void CollectiveRunBox::describeFields()
{
    setObjectName(QStringLiteral("collectiveRunBox"));
    m_operation->setObjectName(QStringLiteral("collectiveOperation"));
    const std::pair<network::CollectiveKind, QString> operations[] = {
        { network::CollectiveKind::AllReduce, tr("all-reduce") },
        { network::CollectiveKind::ReduceScatter, tr("reduce-scatter") },
        { network::CollectiveKind::AllGather, tr("all-gather") },
        { network::CollectiveKind::AllToAll, tr("all-to-all") },
        { network::CollectiveKind::Broadcast, tr("broadcast") },
        { network::CollectiveKind::SendRecv, tr("send/recv") },
    };
    for (const auto& [kind, label] : operations) {
        m_operation->addItem(label, static_cast<int>(kind));
    }
    m_operation->setToolTip(tr("Send/recv goes from the group's first GPU to its last; broadcast starts at the first"));
    m_size->setObjectName(QStringLiteral("collectiveSize"));
    m_size->setToolTip(tr("Bytes per rank as in `rapid collective --bytes`: all-reduce and broadcast the buffer, "
                          "reduce-scatter the input, all-gather the output, all-to-all what a rank sends"));
    m_sizeProblem->setObjectName(QStringLiteral("collectiveSizeProblem"));
    m_group->setObjectName(QStringLiteral("collectiveGroup"));
    m_group->setToolTip(tr("Every GPU, or GPU 0's instance of one network dimension (e.g. one node's NVLink domain)"));
    m_backend->setObjectName(QStringLiteral("collectiveBackend"));
    m_backend->addItem(tr("analytical"), static_cast<int>(CollectiveBackend::Analytical));
    m_backend->setItemData(0, tr("Closed form on an otherwise idle network"), Qt::ToolTipRole);
    m_backend->addItem(tr("congestion"), static_cast<int>(CollectiveBackend::Congestion));
    m_backend->setItemData(1, tr("Every flow simulated with max-min fair link sharing (flow level)"), Qt::ToolTipRole);
    m_backend->addItem(tr("packet"), static_cast<int>(CollectiveBackend::Packet));
    m_backend->setItemData(2,
        tr("Every packet simulated: store-and-forward, fair-queued ports. For messages of a few packets per path; "
           "large messages take long"),
        Qt::ToolTipRole);
    m_packetSize->setObjectName(QStringLiteral("collectivePacketSize"));
    m_packetSize->setToolTip(tr("Bytes of one packet on the wire (4 KiB: the InfiniBand MTU)"));
    m_packetProblem->setObjectName(QStringLiteral("collectivePacketProblem"));
    m_run->setObjectName(QStringLiteral("collectiveRunButton"));
    m_run->setToolTip(tr("Time this one collective on the network drawn here, faults included"));
    m_cancel->setObjectName(QStringLiteral("collectiveCancelButton"));
    m_progress->setObjectName(QStringLiteral("collectiveProgress"));
    m_progress->setRange(0, 0); // the simulators report no progress of a single run: a busy bar
    m_progress->setTextVisible(false);
    m_status->setObjectName(QStringLiteral("collectiveStatus"));
    m_status->setWordWrap(true);
    m_time->setObjectName(QStringLiteral("collectiveTime"));
    m_algorithm->setObjectName(QStringLiteral("collectiveAlgorithm"));
    m_bandwidth->setObjectName(QStringLiteral("collectiveBandwidth"));
    m_bandwidth->setWordWrap(true);
    m_links->setObjectName(QStringLiteral("collectiveLinks"));
    m_links->setTextInteractionFlags(Qt::TextSelectableByMouse); // link ids to paste into faults or the CLI
    QFont bold = m_time->font();
    bold.setBold(true);
    m_time->setFont(bold);
}

/// Edits in the box and in the document, and the runner's outcome.
void CollectiveRunBox::connectSignals(QFormLayout* form)
{
    // Edited in the box.
    connect(m_size, &QLineEdit::textChanged, this, &CollectiveRunBox::validate);
    connect(m_packetSize, &QLineEdit::textChanged, this, &CollectiveRunBox::validate);
    connect(m_backend, &QComboBox::currentIndexChanged, this, [this, form] {
        form->setRowVisible(
            m_packetRow, m_backend->currentData().toInt() == static_cast<int>(CollectiveBackend::Packet));
        validate();
    });
    connect(m_size, &QLineEdit::returnPressed, this, [this] {
        if (m_run->isEnabled()) {
            run();
        }
    });
    connect(m_run, &QPushButton::clicked, this, &CollectiveRunBox::run);
    connect(m_cancel, &QPushButton::clicked, m_runner, &CollectiveRunner::cancel);
    connect(m_runner, &CollectiveRunner::finished, this, [this](const CollectiveOutcome& outcome) {
        showRunning(false);
        showOutcome(outcome);
    });
    connect(m_runner, &CollectiveRunner::failed, this, [this](const QString& message) {
        showRunning(false);
        showStatus(message, true);
    });
    connect(m_runner, &CollectiveRunner::cancelled, this, [this] {
        showRunning(false);
        showStatus(tr("Collective cancelled; nothing was applied."), false);
    });
    // Changed in the document.
    connect(m_document, &WorkspaceDocument::scenarioChanged, this, [this] {
        updateGroups();
        forget();
        validate(); // the first valid scenario enables Run (diagnosticsChanged only comes when the problems change)
    });
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this, [this] {
        if (!m_document->scenario()) {
            forget(); // an edit that broke the configuration also changed what the result described
        }
        validate();
    });
}

void CollectiveRunBox::updateGroups()
{
    const std::optional<config::Scenario>& scenario = m_document->scenario();
    if (!scenario) {
        return; // keep the last valid network's groups, as the drawing does
    }
    const config::ClusterSpec& cluster = scenario->hardware.cluster;
    QStringList labels { tr("every GPU (%1)").arg(cluster.totalGpus()) };
    QStringList names { QString() };
    for (const config::NetworkDimension& dimension : cluster.dimensions) {
        names.append(QString::fromStdString(dimension.name));
        labels.append(dimension.size == 1 ? tr("%1 (1 GPU)").arg(names.last())
                                          : tr("%1 (%2 GPUs)").arg(names.last()).arg(dimension.size));
    }
    QStringList shown;
    for (int i = 0; i < m_group->count(); ++i) {
        shown.append(m_group->itemText(i));
    }
    if (shown == labels) {
        return;
    }
    const QString chosen = m_group->currentData().toString();
    const QSignalBlocker blocker(m_group);
    m_group->clear();
    for (qsizetype i = 0; i < labels.size(); ++i) {
        m_group->addItem(labels[i], names[i]);
    }
    m_group->setCurrentIndex(std::max(0, static_cast<int>(names.indexOf(chosen))));
}

void CollectiveRunBox::validate()
{
    QString why;
    const bool sizeValid = parseBytes(m_size->text(), &why).has_value();
    showProblem(m_sizeProblem, sizeValid ? QString() : why);
    bool packetValid = true;
    if (m_backend->currentData().toInt() == static_cast<int>(CollectiveBackend::Packet)) {
        QString packetWhy;
        const std::optional<double> packet = parseBytes(m_packetSize->text(), &packetWhy);
        if (packet && !(*packet > 0)) {
            packetWhy = tr("the packet backend needs a positive packet size");
        }
        packetValid = packet && *packet > 0;
        showProblem(m_packetProblem, packetValid ? QString() : packetWhy);
    } else {
        showProblem(m_packetProblem, QString());
    }
    m_inputValid = sizeValid && packetValid;
    m_run->setEnabled(m_inputValid && !m_runner->isRunning() && m_document->scenario().has_value());
}

std::optional<network::CollectiveRequest> CollectiveRunBox::request(QString* why) const
{
    const config::HardwareSpec& hardware = m_document->scenario()->hardware;
    network::CollectiveRequest request;
    request.kind = static_cast<network::CollectiveKind>(m_operation->currentData().toInt());
    const std::optional<double> bytes = parseBytes(m_size->text(), why);
    if (!bytes) {
        return std::nullopt;
    }
    request.bytes = *bytes;
    // The GPUs that differ from GPU 0 only in the chosen dimension, as `rapid collective --group`.
    const QString name = m_group->currentData().toString();
    int stride = 1;
    for (const config::NetworkDimension& dimension : hardware.cluster.dimensions) {
        if (QString::fromStdString(dimension.name) == name) {
            for (int i = 0; i < dimension.size; ++i) {
                request.gpus.push_back(i * stride);
            }
            break;
        }
        stride *= dimension.size;
    }
    if (request.gpus.empty()) {
        for (int gpu = 0; gpu < hardware.cluster.totalGpus(); ++gpu) {
            request.gpus.push_back(gpu);
        }
    }
    if (request.kind == network::CollectiveKind::SendRecv) {
        request.gpus = { request.gpus.front(), request.gpus.back() };
    }
    return request;
}

void CollectiveRunBox::run()
{
    if (!m_document->scenario()) {
        showStatus(tr("Fix the configuration first: the collective runs on the workspace's hardware."), true);
        return;
    }
    QString why;
    const std::optional<network::CollectiveRequest> collective = request(&why);
    if (!collective) {
        validate();
        return;
    }
    CollectiveJob job;
    job.hardware = m_document->scenario()->hardware;
    job.request = *collective;
    job.backend = static_cast<CollectiveBackend>(m_backend->currentData().toInt());
    if (job.backend == CollectiveBackend::Packet) {
        job.packetBytes = parseBytes(m_packetSize->text(), &why).value_or(0);
    }
    const bool hadUtilisation = m_outcome && !m_outcome->linkUtilisation.empty();
    clearResult();
    if (hadUtilisation) {
        Q_EMIT utilisationCleared();
    }
    showRunning(true);
    showStatus(job.backend == CollectiveBackend::Analytical ? tr("Computing…") : tr("Simulating every flow…"), false);
    m_runner->start(job);
}

void CollectiveRunBox::showRunning(bool running)
{
    m_run->setEnabled(!running && m_inputValid);
    m_cancel->setEnabled(running);
    m_cancel->setVisible(running);
    m_progress->setVisible(running);
}

void CollectiveRunBox::showOutcome(const CollectiveOutcome& outcome)
{
    m_outcome = outcome;
    const network::CollectiveTime& time = outcome.time;
    m_time->setText(quantity(time.seconds, config::Dimension::Seconds));
    m_algorithm->setText(QString::fromUtf8(network::toString(time.algorithm)));
    // One GPU: nothing crosses a link, so no rate exists (bytes over no time).
    m_bandwidth->setText(time.seconds > 0
            ? tr("%1 algorithm\n%2 bus")
                  .arg(quantity(time.algorithmBandwidth, config::Dimension::BytesPerSecond),
                      quantity(time.busBandwidth, config::Dimension::BytesPerSecond))
            : tr("— (nothing crosses a link)"));
    QStringList links;
    for (const LinkLoad& load : outcome.busiestLinks) {
        links.append(QStringLiteral("%1%  %2 %3")
                         .arg(QString::number(load.utilisation * 100, 'f', 1), load.id,
                             load.forward ? QStringLiteral("a→b") : QStringLiteral("b→a")));
    }
    m_links->setText(links.join(QLatin1Char('\n')));
    m_links->setToolTip(tr("Bytes carried / (bandwidth × makespan), per direction"));
    auto* form = static_cast<QFormLayout*>(m_result->layout());
    form->setRowVisible(m_links, !links.isEmpty());
    m_result->show();
    if (outcome.backend == CollectiveBackend::Analytical) {
        showStatus(tr("Closed form on an idle network. The congestion and packet backends colour the links."), false);
    } else {
        const QString packets = outcome.backend == CollectiveBackend::Packet
            ? tr(", %L1 packets").arg(static_cast<qulonglong>(outcome.packets))
            : QString();
        showStatus(tr("%L1 flows%2; links coloured by utilisation.").arg(outcome.flows).arg(packets), false);
        Q_EMIT utilisationAvailable(outcome.linkUtilisation);
    }
}

void CollectiveRunBox::showStatus(const QString& text, bool problem)
{
    QPalette palette = this->palette();
    if (problem) {
        palette.setColor(QPalette::WindowText, problemColor(palette));
    }
    m_status->setPalette(palette);
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
}

void CollectiveRunBox::clearResult()
{
    m_outcome.reset();
    m_result->hide();
    m_time->clear();
    m_algorithm->clear();
    m_bandwidth->clear();
    m_links->clear();
}

void CollectiveRunBox::forget()
{
    const bool shown = m_runner->isRunning() || m_outcome || !m_status->text().isEmpty();
    if (m_runner->isRunning()) {
        m_runner->cancel();
    }
    if (!shown) {
        return;
    }
    const bool hadUtilisation = m_outcome && !m_outcome->linkUtilisation.empty();
    clearResult();
    showStatus(tr("The workspace changed: run the collective again."), false);
    if (hadUtilisation) {
        Q_EMIT utilisationCleared();
    }
}

} // namespace rapid::widgets
