// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/goodputfigures.h"

#include "resilience/checkpointsize.h"
#include "resilience/failurerates.h"
#include "sim/stepmodel.h"

#include <cmath>
#include <stdexcept>

namespace rapid::widgets {

GoodputFigures computeGoodput(const config::Scenario& scenario, const GoodputInputs& inputs)
{
    if (scenario.run.mode != config::RunMode::Training) {
        throw std::invalid_argument("run.mode: goodput over a training run needs a training run");
    }
    if (!(inputs.tokens > 0) || !(inputs.storageBytesPerSecond > 0) || inputs.mtbfSeconds < 0
        || inputs.detectSeconds < 0 || inputs.relaunchSeconds < 0) {
        throw std::invalid_argument("tokens and storage bandwidth must be positive, times not negative");
    }
    GoodputFigures f;
    sim::StepModel stepModel(scenario);
    f.stepSeconds = stepModel.training(false).stepTimeSeconds;
    f.gpus = scenario.run.parallelism.gpuCount();
    const double tokensPerStep
        = static_cast<double>(scenario.run.globalBatch) * static_cast<double>(scenario.run.seqLength);
    f.steps = std::ceil(inputs.tokens / tokensPerStep);
    f.run.workSeconds = f.steps * f.stepSeconds;
    f.mtbfFromRecord = inputs.mtbfSeconds == 0;
    f.run.mtbfSeconds
        = f.mtbfFromRecord ? resilience::jobMtbfSeconds(resilience::llama3Interruptions(), f.gpus) : inputs.mtbfSeconds;
    f.checkpointBytes = resilience::checkpointBytes(scenario.model, scenario.run);
    f.run.checkpointSeconds = f.checkpointBytes / inputs.storageBytesPerSecond;
    // Detection, relaunch and reading the checkpoint back, as rapid goodput counts a restart.
    f.run.restartSeconds = inputs.detectSeconds + inputs.relaunchSeconds + f.run.checkpointSeconds;
    resilience::checkRun(f.run, 1);
    f.young = resilience::youngInterval(f.run.checkpointSeconds, f.run.mtbfSeconds);
    f.daly = resilience::dalyInterval(f.run.checkpointSeconds, f.run.mtbfSeconds);
    f.optimum = resilience::optimalInterval(f.run);
    fillGoodputCurve(f);
    return f;
}

void fillGoodputCurve(GoodputFigures& f)
{
    f.intervals.clear();
    f.fractions.clear();
    const int half = kCurvePoints / 2;
    for (int i = -half; i <= half; ++i) {
        const double interval = f.optimum * std::pow(kCurveSpan, static_cast<double>(i) / half);
        f.intervals.push_back(interval);
        f.fractions.push_back(resilience::expectedEffectiveFraction(f.run, interval));
    }
}

double SimulatedGoodput::halfWidth95() const
{
    const double work = study.meanEffectiveFraction * study.meanWallSeconds;
    return 1.96 * work * study.standardError / (study.meanWallSeconds * study.meanWallSeconds);
}

void simulateGoodput(GoodputFigures& figures, const GoodputInputs& inputs, const std::function<void(qint64)>& progress,
    const std::atomic<bool>* stop)
{
    figures.simulated.clear();
    if (inputs.trials <= 0) {
        return;
    }
    qint64 before = 0;
    try {
        // The shortest interval first: it is the most segments, so a simulation over the limit is refused before
        // any time is spent on the others.
        for (const double factor : kSimulatedFactors) {
            SimulatedGoodput point;
            point.interval = factor * figures.optimum;
            const auto report = [&progress, before](int done) {
                if (progress) {
                    progress(before + done);
                }
            };
            point.study
                = resilience::simulateRuns(figures.run, point.interval, inputs.trials, inputs.seed, report, stop);
            figures.simulated.push_back(point);
            before += inputs.trials;
        }
    } catch (const std::invalid_argument& tooLong) {
        figures.simulated.clear();
        figures.simulationProblem = QString::fromUtf8(tooLong.what());
    }
}

QString durationText(double seconds)
{
    if (seconds >= 2 * 86400) {
        return QStringLiteral("%1 days").arg(seconds / 86400, 0, 'f', 2);
    }
    if (seconds >= 2 * 3600) {
        return QStringLiteral("%1 h").arg(seconds / 3600, 0, 'f', 2);
    }
    if (seconds >= 120) {
        return QStringLiteral("%1 min").arg(seconds / 60, 0, 'f', 1);
    }
    return QStringLiteral("%1 s").arg(seconds, 0, 'g', 4);
}

} // namespace rapid::widgets
