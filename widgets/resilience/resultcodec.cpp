// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/resultcodec.h"

#include <QJsonArray>

#include <cmath>

namespace rapid::widgets {

namespace {

/// Format version of every object written here: a reader meeting another refuses it (the page asks to run again).
constexpr int kVersion = 1;

QJsonArray numbers(const std::vector<double>& values)
{
    QJsonArray array;
    for (const double value : values) {
        array.append(value);
    }
    return array;
}

/// The finite numbers of @p array, or nothing when one is not a number.
std::optional<std::vector<double>> numbersOf(const QJsonValue& value)
{
    if (!value.isArray()) {
        return std::nullopt;
    }
    std::vector<double> result;
    for (const QJsonValue& item : value.toArray()) {
        if (!item.isDouble() || !std::isfinite(item.toDouble())) {
            return std::nullopt;
        }
        result.push_back(item.toDouble());
    }
    return result;
}

/// Seeds as text: a 64-bit seed is not a double.
QString seedText(std::uint64_t seed)
{
    return QString::number(seed);
}

std::optional<sim::NetworkBackend> backendOf(const QJsonValue& value)
{
    return sim::parseNetworkBackend(value.toString().toStdString());
}

bool isVersion(const QJsonObject& json)
{
    return json.value(QStringLiteral("version")).toInt() == kVersion;
}

QJsonObject specToJson(const resilience::FaultStudySpec& spec)
{
    QJsonArray classes;
    for (const std::string& name : spec.classes) {
        classes.append(QString::fromStdString(name));
    }
    return { { QStringLiteral("faulty_links"), spec.faultyLinks }, { QStringLiteral("health"), spec.health },
        { QStringLiteral("classes"), classes }, { QStringLiteral("slow_gpus"), spec.slowGpus },
        { QStringLiteral("slowdown"), spec.slowdown }, { QStringLiteral("trials"), spec.trials },
        { QStringLiteral("seed"), seedText(spec.seed) },
        { QStringLiteral("backend"), QString::fromUtf8(sim::toString(spec.backend)) } };
}

std::optional<resilience::FaultStudySpec> specFromJson(const QJsonObject& json)
{
    resilience::FaultStudySpec spec;
    spec.faultyLinks = json.value(QStringLiteral("faulty_links")).toInt(-1);
    spec.health = json.value(QStringLiteral("health")).toDouble(-1);
    for (const QJsonValue& name : json.value(QStringLiteral("classes")).toArray()) {
        spec.classes.push_back(name.toString().toStdString());
    }
    spec.slowGpus = json.value(QStringLiteral("slow_gpus")).toInt(-1);
    spec.slowdown = json.value(QStringLiteral("slowdown")).toDouble(-1);
    spec.trials = json.value(QStringLiteral("trials")).toInt(-1);
    bool seedRead = false;
    spec.seed = json.value(QStringLiteral("seed")).toString().toULongLong(&seedRead);
    const std::optional<sim::NetworkBackend> backend = backendOf(json.value(QStringLiteral("backend")));
    if (spec.faultyLinks < 0 || spec.health < 0 || spec.slowGpus < 0 || spec.slowdown < 0 || spec.trials < 0
        || !seedRead || !backend) {
        return std::nullopt;
    }
    spec.backend = *backend;
    return spec;
}

QJsonObject resultToJson(const resilience::FaultStudyResult& result)
{
    std::vector<double> steps; // 0: the trial cut GPUs apart, as FaultTrial says
    for (const resilience::FaultTrial& trial : result.trials) {
        steps.push_back(trial.disconnected ? 0.0 : trial.stepSeconds);
    }
    return { { QStringLiteral("baseline_s"), result.baselineSeconds }, { QStringLiteral("step_s"), numbers(steps) },
        { QStringLiteral("mean"), result.meanSlowdown }, { QStringLiteral("p50"), result.p50Slowdown },
        { QStringLiteral("p90"), result.p90Slowdown }, { QStringLiteral("p99"), result.p99Slowdown },
        { QStringLiteral("max"), result.maxSlowdown } };
}

std::optional<resilience::FaultStudyResult> resultFromJson(const QJsonObject& json)
{
    const std::optional<std::vector<double>> steps = numbersOf(json.value(QStringLiteral("step_s")));
    if (!steps) {
        return std::nullopt;
    }
    resilience::FaultStudyResult result;
    result.baselineSeconds = json.value(QStringLiteral("baseline_s")).toDouble();
    for (const double step : *steps) {
        resilience::FaultTrial trial;
        trial.stepSeconds = step;
        trial.disconnected = step == 0;
        result.disconnected += trial.disconnected ? 1 : 0;
        result.trials.push_back(std::move(trial));
    }
    // The statistics as computed, not summarised again: a study run with another version's quantiles shows its own.
    result.meanSlowdown = json.value(QStringLiteral("mean")).toDouble();
    result.p50Slowdown = json.value(QStringLiteral("p50")).toDouble();
    result.p90Slowdown = json.value(QStringLiteral("p90")).toDouble();
    result.p99Slowdown = json.value(QStringLiteral("p99")).toDouble();
    result.maxSlowdown = json.value(QStringLiteral("max")).toDouble();
    return result;
}

} // namespace

QJsonObject studyRowsToJson(const StudyRows& rows)
{
    QJsonArray items;
    for (size_t i = 0; i < rows.specs.size(); ++i) {
        items.append(QJsonObject { { QStringLiteral("spec"), specToJson(rows.specs[i]) },
            { QStringLiteral("result"), resultToJson(rows.results[i]) } });
    }
    return { { QStringLiteral("version"), kVersion }, { QStringLiteral("rows"), items } };
}

std::shared_ptr<const StudyRows> studyRowsFromJson(const QJsonObject& json)
{
    if (!isVersion(json) || !json.value(QStringLiteral("rows")).isArray()) {
        return nullptr;
    }
    auto rows = std::make_shared<StudyRows>();
    for (const QJsonValue& item : json.value(QStringLiteral("rows")).toArray()) {
        const auto spec = specFromJson(item.toObject().value(QStringLiteral("spec")).toObject());
        const auto result = resultFromJson(item.toObject().value(QStringLiteral("result")).toObject());
        if (!spec || !result) {
            return nullptr;
        }
        rows->specs.push_back(*spec);
        rows->results.push_back(*result);
    }
    return rows;
}

QJsonObject criticalityToJson(const CriticalityMap& map)
{
    QJsonArray ranked;
    for (const resilience::LinkCriticality& link : map.ranked) {
        QJsonArray links;
        for (const std::string& id : link.links) {
            links.append(QString::fromStdString(id));
        }
        ranked.append(QJsonObject { { QStringLiteral("link"), QString::fromStdString(link.linkId) },
            { QStringLiteral("class"), QString::fromStdString(link.linkClass) },
            { QStringLiteral("slowdown"), link.slowdown }, { QStringLiteral("disconnects"), link.disconnects },
            { QStringLiteral("links"), links } });
    }
    return { { QStringLiteral("version"), kVersion }, { QStringLiteral("health"), map.health },
        { QStringLiteral("backend"), QString::fromUtf8(sim::toString(map.backend)) },
        { QStringLiteral("ranked"), ranked } };
}

std::shared_ptr<const CriticalityMap> criticalityFromJson(
    const QJsonObject& json, std::shared_ptr<const network::Topology> topology)
{
    const std::optional<sim::NetworkBackend> backend = backendOf(json.value(QStringLiteral("backend")));
    if (!isVersion(json) || !backend || !json.value(QStringLiteral("ranked")).isArray()) {
        return nullptr;
    }
    auto map = std::make_shared<CriticalityMap>();
    map->topology = std::move(topology);
    map->health = json.value(QStringLiteral("health")).toDouble();
    map->backend = *backend;
    for (const QJsonValue& item : json.value(QStringLiteral("ranked")).toArray()) {
        const QJsonObject link = item.toObject();
        if (!link.value(QStringLiteral("link")).isString() || !link.value(QStringLiteral("slowdown")).isDouble()) {
            return nullptr;
        }
        resilience::LinkCriticality entry { link.value(QStringLiteral("link")).toString().toStdString(),
            link.value(QStringLiteral("class")).toString().toStdString(),
            link.value(QStringLiteral("slowdown")).toDouble(), link.value(QStringLiteral("disconnects")).toBool(), {} };
        // The links of a unit (a node's NICs); a single link's list is its id (older files have no list).
        for (const QJsonValue& id : link.value(QStringLiteral("links")).toArray()) {
            entry.links.push_back(id.toString().toStdString());
        }
        if (entry.links.empty()) {
            entry.links.push_back(entry.linkId);
        }
        map->ranked.push_back(std::move(entry));
    }
    return map;
}

QJsonObject goodputToJson(const GoodputFigures& f)
{
    QJsonArray simulated;
    for (const SimulatedGoodput& point : f.simulated) {
        const resilience::RunStudy& s = point.study;
        simulated.append(QJsonObject { { QStringLiteral("interval_s"), point.interval },
            { QStringLiteral("trials"), s.trials }, { QStringLiteral("mean_wall_s"), s.meanWallSeconds },
            { QStringLiteral("standard_error_s"), s.standardError },
            { QStringLiteral("effective_fraction"), s.meanEffectiveFraction },
            { QStringLiteral("p10"), s.p10EffectiveFraction }, { QStringLiteral("p90"), s.p90EffectiveFraction },
            { QStringLiteral("interruptions"), s.meanInterruptions } });
    }
    return { { QStringLiteral("version"), kVersion }, { QStringLiteral("step_s"), f.stepSeconds },
        { QStringLiteral("gpus"), f.gpus }, { QStringLiteral("steps"), f.steps },
        { QStringLiteral("checkpoint_bytes"), f.checkpointBytes },
        { QStringLiteral("mtbf_from_record"), f.mtbfFromRecord }, { QStringLiteral("work_s"), f.run.workSeconds },
        { QStringLiteral("mtbf_s"), f.run.mtbfSeconds }, { QStringLiteral("checkpoint_s"), f.run.checkpointSeconds },
        { QStringLiteral("restart_s"), f.run.restartSeconds }, { QStringLiteral("young_s"), f.young },
        { QStringLiteral("daly_s"), f.daly }, { QStringLiteral("optimum_s"), f.optimum },
        { QStringLiteral("simulated"), simulated }, { QStringLiteral("simulation_problem"), f.simulationProblem } };
}

std::optional<GoodputFigures> goodputFromJson(const QJsonObject& json)
{
    if (!isVersion(json)) {
        return std::nullopt;
    }
    const auto number = [&json](const char* key) { return json.value(QLatin1String(key)).toDouble(NAN); };
    GoodputFigures f;
    f.stepSeconds = number("step_s");
    f.gpus = json.value(QStringLiteral("gpus")).toInt();
    f.steps = number("steps");
    f.checkpointBytes = number("checkpoint_bytes");
    f.mtbfFromRecord = json.value(QStringLiteral("mtbf_from_record")).toBool();
    f.run = { number("work_s"), number("mtbf_s"), number("checkpoint_s"), number("restart_s") };
    f.young = number("young_s");
    f.daly = number("daly_s");
    f.optimum = number("optimum_s");
    f.simulationProblem = json.value(QStringLiteral("simulation_problem")).toString();
    for (const QJsonValue& item : json.value(QStringLiteral("simulated")).toArray()) {
        const QJsonObject point = item.toObject();
        const auto value = [&point](const char* key) { return point.value(QLatin1String(key)).toDouble(NAN); };
        SimulatedGoodput simulated;
        simulated.interval = value("interval_s");
        simulated.study
            = { point.value(QStringLiteral("trials")).toInt(), value("mean_wall_s"), value("standard_error_s"),
                  value("effective_fraction"), value("p10"), value("p90"), value("interruptions") };
        f.simulated.push_back(simulated);
    }
    try {
        resilience::checkRun(f.run, f.optimum); // NaNs (missing keys) and nonsense refused
    } catch (const std::invalid_argument&) {
        return std::nullopt;
    }
    fillGoodputCurve(f);
    return f;
}

} // namespace rapid::widgets
