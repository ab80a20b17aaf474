// SPDX-License-Identifier: GPL-3.0-or-later
// The random parts of a serving workload against closed forms: gamma-distributed gaps (vLLM's benchmark
// --burstiness), their thinning over data-parallel replicas, and normally distributed lengths (genai-perf's
// --synthetic-input-tokens-stddev and --output-tokens-stddev), and a pool of distinct prompts (--num-dataset-entries).
// Sample statistics over 40,000 draws are held to about four standard errors of the value derived by hand.
#include "serving/replicashares.h"
#include "serving/servingengine.h"

#include <QTest>

#include <cmath>
#include <random>
#include <set>
#include <vector>

using namespace rapid;
using serving::RequestSpec;
using serving::WorkloadSpec;

namespace {

constexpr int kDraws = 40'000;

WorkloadSpec openLoop(double rate, double burstiness)
{
    WorkloadSpec workload;
    workload.arrival = serving::ArrivalKind::Poisson;
    workload.ratePerSecond = rate;
    workload.burstiness = burstiness;
    workload.requests = kDraws;
    workload.seed = 7;
    return workload;
}

struct Moments {
    double mean = 0;
    double deviation = 0;
};

Moments momentsOf(const std::vector<double>& values)
{
    Moments moments;
    for (double value : values) {
        moments.mean += value;
    }
    moments.mean /= static_cast<double>(values.size());
    for (double value : values) {
        moments.deviation += (value - moments.mean) * (value - moments.mean);
    }
    moments.deviation = std::sqrt(moments.deviation / static_cast<double>(values.size() - 1));
    return moments;
}

Moments gapsOf(const std::vector<RequestSpec>& requests)
{
    std::vector<double> gaps;
    double previous = 0;
    for (const RequestSpec& request : requests) {
        gaps.push_back(request.arrivalSeconds - previous);
        previous = request.arrivalSeconds;
    }
    return momentsOf(gaps);
}

bool near(double actual, double expected, double relative)
{
    return std::abs(actual - expected) <= relative * std::abs(expected);
}

} // namespace

class TstWorkloadDraws : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void burstinessOneKeepsTheExponentialDraws()
    {
        // Burstiness 1 is Poisson: the gaps are the exponential draws of the seed's generator, one per request.
        const std::vector<RequestSpec> requests = serving::workloadRequests(openLoop(3, 1));
        std::mt19937_64 random(7);
        std::exponential_distribution<double> gap(3);
        double now = 0;
        for (const RequestSpec& request : requests) {
            now += gap(random);
            QCOMPARE(request.arrivalSeconds, now);
        }
    }

    void gammaGapsHaveTheMeanAndSpreadOfTheirShape()
    {
        // Shape k, scale 1 / (k rate): mean 1 / rate, coefficient of variation 1 / sqrt(k). At 2 requests/s: mean
        // 0.5 s; k = 4 gives a deviation of 0.25 s (standard error of the mean 0.125%), k = 0.25 one of 1 s (1%).
        const Moments even = gapsOf(serving::workloadRequests(openLoop(2, 4)));
        QVERIFY2(near(even.mean, 0.5, 0.01), qPrintable(QString::number(even.mean)));
        QVERIFY2(near(even.deviation, 0.25, 0.02), qPrintable(QString::number(even.deviation)));
        const Moments bursty = gapsOf(serving::workloadRequests(openLoop(2, 0.25)));
        QVERIFY2(near(bursty.mean, 0.5, 0.04), qPrintable(QString::number(bursty.mean)));
        QVERIFY2(near(bursty.deviation, 1.0, 0.06), qPrintable(QString::number(bursty.deviation)));
    }

    void replicasReceiveAThinnedGammaStream()
    {
        // 8 requests/s of shape 0.5 dealt at random over 4 replicas: each sees 2/s, so a mean gap of 0.5 s, and a gap
        // is a geometric number N (p = 1/4) of the stream's gaps, squared coefficient of variation
        // p c^2 + (1 - p) = 0.25 x 2 + 0.75 = 1.25: a deviation of 0.5 x sqrt(1.25) = 0.559 s.
        WorkloadSpec stream = openLoop(8, 0.5);
        stream.requests = 4 * kDraws;
        const auto shares = serving::replicaShares(stream, 4);
        QCOMPARE(shares.size(), size_t { 1 });
        QCOMPARE(shares[0].workload.thinning, 4);
        QCOMPARE(shares[0].workload.ratePerSecond, 2.0);
        const Moments gaps = gapsOf(serving::workloadRequests(shares[0].workload));
        QVERIFY2(near(gaps.mean, 0.5, 0.025), qPrintable(QString::number(gaps.mean)));
        QVERIFY2(near(gaps.deviation, 0.5 * std::sqrt(1.25), 0.05), qPrintable(QString::number(gaps.deviation)));
    }

    void lengthsAreNormalAroundTheirMeans()
    {
        // Prompts of mean 1,000 and deviation 100 (1 lies 10 deviations away: no draw is redrawn); outputs of mean 10
        // and deviation 20, drawn again below 1: round(X) >= 1 when X >= 0.5, so the mean is the sum over n >= 1 of
        // n P(round(X) = n) / P(X >= 0.5) = 20.444 and the deviation 13.848 (standard error of the mean 0.069).
        WorkloadSpec workload;
        workload.requests = kDraws;
        workload.promptTokens = 1000;
        workload.promptTokensStddev = 100;
        workload.outputTokens = 10;
        workload.outputTokensStddev = 20;
        const std::vector<RequestSpec> requests = serving::workloadRequests(workload);
        std::vector<double> prompts;
        std::vector<double> outputs;
        for (const RequestSpec& request : requests) {
            QVERIFY(request.outputTokens >= 1);
            prompts.push_back(static_cast<double>(request.promptTokens));
            outputs.push_back(static_cast<double>(request.outputTokens));
        }
        const Moments prompt = momentsOf(prompts);
        QVERIFY2(std::abs(prompt.mean - 1000) <= 2, qPrintable(QString::number(prompt.mean)));
        QVERIFY2(near(prompt.deviation, 100, 0.02), qPrintable(QString::number(prompt.deviation)));
        const Moments output = momentsOf(outputs);
        QVERIFY2(std::abs(output.mean - 20.444) <= 0.3, qPrintable(QString::number(output.mean)));
        QVERIFY2(near(output.deviation, 13.848, 0.03), qPrintable(QString::number(output.deviation)));
    }

    void spreadLengthsKeepTheArrivalsAndTheSharedPrefix()
    {
        // The lengths come from a stream of their own: the same seed gives the same arrival times with or without
        // them. A prompt drawn shorter than the shared prefix is drawn again.
        WorkloadSpec fixed = openLoop(5, 0.7);
        fixed.requests = 1000;
        fixed.promptTokens = 100;
        fixed.sharedPrefixTokens = 80;
        WorkloadSpec spread = fixed;
        spread.promptTokensStddev = 100;
        spread.outputTokensStddev = 50;
        const std::vector<RequestSpec> a = serving::workloadRequests(fixed);
        const std::vector<RequestSpec> b = serving::workloadRequests(spread);
        bool someDiffer = false;
        for (size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(b[i].arrivalSeconds, a[i].arrivalSeconds);
            QVERIFY(b[i].promptTokens >= 80);
            someDiffer = someDiffer || b[i].promptTokens != 100;
        }
        QVERIFY(someDiffer);
    }

    void aPromptPoolDealsItsPromptsUniformlyAndKeepsTheirLengths()
    {
        // 40,000 requests over 8 pooled prompts: each prompt is drawn with probability 1/8, so its count is binomial
        // (mean 5,000, standard deviation sqrt(40,000 x 1/8 x 7/8) = 66.1; within 4 of those: 265). Requests of one
        // prompt have that prompt's lengths (drawn once per prompt), and the pool leaves the arrival times alone.
        WorkloadSpec alone = openLoop(5, 0.7);
        alone.promptTokens = 1000;
        alone.outputTokens = 50;
        alone.promptTokensStddev = 100;
        alone.outputTokensStddev = 10;
        WorkloadSpec pooled = alone;
        pooled.promptPool = 8;
        const std::vector<RequestSpec> a = serving::workloadRequests(alone);
        const std::vector<RequestSpec> b = serving::workloadRequests(pooled);
        QCOMPARE(b.size(), size_t(kDraws));
        std::vector<int> counts(8, 0);
        std::vector<std::pair<std::int64_t, std::int64_t>> lengths(8, { -1, -1 });
        for (size_t i = 0; i < b.size(); ++i) {
            QCOMPARE(b[i].arrivalSeconds, a[i].arrivalSeconds);
            QVERIFY(b[i].prefixId >= 0 && b[i].prefixId < 8);
            const auto prompt = static_cast<size_t>(b[i].prefixId);
            ++counts[prompt];
            if (lengths[prompt].first < 0) {
                lengths[prompt] = { b[i].promptTokens, b[i].outputTokens };
            }
            QCOMPARE(b[i].promptTokens, lengths[prompt].first);
            QCOMPARE(b[i].outputTokens, lengths[prompt].second);
        }
        std::set<std::int64_t> distinctPrompts;
        for (size_t prompt = 0; prompt < counts.size(); ++prompt) {
            QVERIFY2(std::abs(counts[prompt] - 5000) <= 265, qPrintable(QString::number(counts[prompt])));
            distinctPrompts.insert(lengths[prompt].first);
        }
        QVERIFY(distinctPrompts.size() > 1); // the lengths were drawn per prompt, not all alike
        // Without spread every pooled prompt has the mean lengths, and a pool of one is one prompt sent again.
        pooled.promptTokensStddev = 0;
        pooled.outputTokensStddev = 0;
        pooled.promptPool = 1;
        for (const RequestSpec& request : serving::workloadRequests(pooled)) {
            QCOMPARE(request.prefixId, 0);
            QCOMPARE(request.promptTokens, std::int64_t(1000));
            QCOMPARE(request.outputTokens, std::int64_t(50));
        }
        QCOMPARE(serving::sharedPromptTokens(pooled), std::int64_t(10'000'000));
        QCOMPARE(serving::sharedPromptTokens(alone), std::int64_t(0));
    }
};

QTEST_APPLESS_MAIN(TstWorkloadDraws)
#include "tst_workloaddraws.moc"
