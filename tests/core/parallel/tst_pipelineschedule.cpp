// SPDX-License-Identifier: GPL-3.0-or-later
// Pipeline schedules: every pass appears once and in dependency order; the number of micro-batches in flight
// matches each schedule's closed form.
#include "parallel/pipelineschedule.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using rapid::config::PipelineSchedule;
using rapid::parallel::Pass;
using rapid::parallel::PipelineStep;

namespace {
int maxInFlight(const std::vector<PipelineStep>& steps)
{
    int inFlight = 0;
    int peak = 0;
    for (const PipelineStep& step : steps) {
        inFlight += step.pass == Pass::Forward ? 1 : -1;
        peak = std::max(peak, inFlight);
    }
    return peak;
}

/// What a memory replay sees at each step: the chunk passes in flight per model chunk after it, and the step's own
/// pass, chunk and pairing (the transients it adds depend on them). A schedule's holdings: the distinct such states.
using Holding = std::tuple<std::vector<int>, Pass, int, bool>;
std::set<Holding> holdings(const std::vector<PipelineStep>& steps, int chunks)
{
    std::vector<int> inFlight(static_cast<size_t>(chunks), 0);
    std::set<Holding> seen;
    for (const PipelineStep& step : steps) {
        inFlight[static_cast<size_t>(step.chunk)] += step.pass == Pass::Forward ? 1 : -1;
        seen.insert({ inFlight, step.pass, step.chunk, step.coScheduled });
    }
    return seen;
}
} // namespace

class TstPipelineSchedule : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyPassOnceInOrder_data();
    void everyPassOnceInOrder();
    void inFlightMatchesClosedForm_data();
    void inFlightMatchesClosedForm();
    void evenAndCostBalancedSplits();
    void combinedOneFOneBWarmsUpOneMoreAndPairsTheSteadyState();
    void memoryEquivalentScheduleHoldsWhatTheLongOneHolds_data();
    void memoryEquivalentScheduleHoldsWhatTheLongOneHolds();
};

void TstPipelineSchedule::everyPassOnceInOrder_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("microBatches");
    QTest::addColumn<int>("virtualStages");
    QTest::addRow("gpipe_4_stages_8_mb") << int(PipelineSchedule::Gpipe) << 4 << 8 << 1;
    QTest::addRow("1f1b_4_stages_8_mb") << int(PipelineSchedule::OneFOneB) << 4 << 8 << 1;
    QTest::addRow("1f1b_8_stages_3_mb") << int(PipelineSchedule::OneFOneB) << 8 << 3 << 1;
    QTest::addRow("1f1b_single_stage_4_mb") << int(PipelineSchedule::OneFOneB) << 1 << 4 << 1;
    QTest::addRow("interleaved_4_stages_8_mb_2_chunks") << int(PipelineSchedule::Interleaved) << 4 << 8 << 2;
    QTest::addRow("interleaved_2_stages_4_mb_3_chunks") << int(PipelineSchedule::Interleaved) << 2 << 4 << 3;
}

void TstPipelineSchedule::everyPassOnceInOrder()
{
    QFETCH(int, schedule);
    QFETCH(int, stages);
    QFETCH(int, microBatches);
    QFETCH(int, virtualStages);
    const int chunks = schedule == int(PipelineSchedule::Interleaved) ? virtualStages : 1;
    for (int stage = 0; stage < stages; ++stage) {
        const auto steps
            = rapid::parallel::pipelineSteps(PipelineSchedule(schedule), stages, stage, microBatches, virtualStages);
        QCOMPARE(int(steps.size()), 2 * microBatches * chunks);
        std::map<std::pair<int, int>, int> forwardAt;
        for (int i = 0; i < int(steps.size()); ++i) {
            const auto key = std::make_pair(steps[size_t(i)].microBatch, steps[size_t(i)].chunk);
            if (steps[size_t(i)].pass == Pass::Forward) {
                QVERIFY(!forwardAt.count(key));
                forwardAt[key] = i;
            } else {
                QVERIFY2(forwardAt.count(key), "backward before its forward");
            }
        }
        QCOMPARE(int(forwardAt.size()), microBatches * chunks);
    }
}

void TstPipelineSchedule::inFlightMatchesClosedForm_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("stage");
    QTest::addColumn<int>("microBatches");
    QTest::addColumn<int>("virtualStages");
    QTest::addColumn<int>("expected");
    // GPipe holds every micro-batch.
    QTest::addRow("gpipe_all_in_flight") << int(PipelineSchedule::Gpipe) << 4 << 0 << 8 << 1 << 8;
    // 1F1B: stage s holds min(p - s, m).
    QTest::addRow("1f1b_stage0_holds_pp") << int(PipelineSchedule::OneFOneB) << 4 << 0 << 8 << 1 << 4;
    QTest::addRow("1f1b_stage2_holds_pp_minus_2") << int(PipelineSchedule::OneFOneB) << 4 << 2 << 8 << 1 << 2;
    QTest::addRow("1f1b_last_stage_holds_one") << int(PipelineSchedule::OneFOneB) << 4 << 3 << 8 << 1 << 1;
    QTest::addRow("1f1b_fewer_mb_than_stages") << int(PipelineSchedule::OneFOneB) << 8 << 0 << 3 << 1 << 3;
    // pp = 1 with gradient accumulation: one micro-batch at a time (the reference tool stopped early here).
    QTest::addRow("1f1b_pp1_accumulation") << int(PipelineSchedule::OneFOneB) << 1 << 0 << 6 << 1 << 1;
    // Interleaved (Megatron): warm-up (p - s - 1) * 2 + (v - 1) * p forwards, plus the first steady forward.
    // p = 4, v = 2, stage 0: 6 + 4 + 1 = 11 chunk passes in flight.
    QTest::addRow("interleaved_stage0") << int(PipelineSchedule::Interleaved) << 4 << 0 << 8 << 2 << 11;
    // Last stage: 0 + 4 + 1 = 5.
    QTest::addRow("interleaved_last_stage") << int(PipelineSchedule::Interleaved) << 4 << 3 << 8 << 2 << 5;
}

void TstPipelineSchedule::inFlightMatchesClosedForm()
{
    QFETCH(int, schedule);
    QFETCH(int, stages);
    QFETCH(int, stage);
    QFETCH(int, microBatches);
    QFETCH(int, virtualStages);
    QFETCH(int, expected);
    QCOMPARE(maxInFlight(rapid::parallel::pipelineSteps(
                 PipelineSchedule(schedule), stages, stage, microBatches, virtualStages)),
        expected);
}

void TstPipelineSchedule::evenAndCostBalancedSplits()
{
    QCOMPARE(rapid::parallel::layersPerChunk(10, 4, 1, {}), (std::vector<int> { 3, 3, 2, 2 }));
    QCOMPARE(rapid::parallel::layersPerChunk(10, 2, 1, { 7, 3 }), (std::vector<int> { 7, 3 }));
    // 16 layers of cost 1 and a head of cost 4 over 2 stages: total 20, stage 0 fills to 10 layers, stage 1 takes
    // the remaining 6 layers and the head (6 + 4 = 10).
    QCOMPARE(rapid::parallel::costBalancedLayersPerStage(16, 2, 1.0, 4.0), (std::vector<int> { 10, 6 }));
}

void TstPipelineSchedule::combinedOneFOneBWarmsUpOneMoreAndPairsTheSteadyState()
{
    // Megatron-Core's --overlap-moe-expert-parallel-comm: one more warm-up forward, then each steady-state forward
    // with the backward after it. pp = 1, 4 micro-batches (combined_1f1b_schedule_for_no_pipelining): F0 alone, then
    // F1+B0, F2+B1, F3+B2, then B3 alone.
    const auto single = rapid::parallel::pipelineSteps(PipelineSchedule::OneFOneB, 1, 0, 4, 1, true);
    const std::vector<PipelineStep> expected = { { Pass::Forward, 0, 0, false }, { Pass::Forward, 1, 0, true },
        { Pass::Backward, 0, 0, true }, { Pass::Forward, 2, 0, true }, { Pass::Backward, 1, 0, true },
        { Pass::Forward, 3, 0, true }, { Pass::Backward, 2, 0, true }, { Pass::Backward, 3, 0, false } };
    QCOMPARE(single, expected);
    // Interleaved, p = 4, v = 2, 8 micro-batches: stage s warms up with (p - s - 1) * 2 + (v - 1) * p + 1 forwards, so
    // one more chunk pass is in flight than without (12 on stage 0, 6 on the last), and every other step is paired.
    for (int stage = 0; stage < 4; ++stage) {
        const auto steps = rapid::parallel::pipelineSteps(PipelineSchedule::Interleaved, 4, stage, 8, 2, true);
        const int warmup = (4 - stage - 1) * 2 + 4 + 1;
        const int total = 16;
        QCOMPARE(maxInFlight(steps), warmup + 1);
        for (int i = 0; i < int(steps.size()); ++i) {
            const bool steady = i >= warmup && i < warmup + 2 * (total - warmup);
            QCOMPARE(steps[size_t(i)].coScheduled, steady);
            if (steady) {
                QCOMPARE(steps[size_t(i)].pass, (i - warmup) % 2 == 0 ? Pass::Forward : Pass::Backward);
            }
        }
        // Without the flag nothing is paired and the warm-up is Megatron's own.
        const auto plain = rapid::parallel::pipelineSteps(PipelineSchedule::Interleaved, 4, stage, 8, 2);
        QCOMPARE(maxInFlight(plain), warmup);
        QVERIFY(std::none_of(plain.begin(), plain.end(), [](const PipelineStep& s) { return s.coScheduled; }));
    }
}

void TstPipelineSchedule::memoryEquivalentScheduleHoldsWhatTheLongOneHolds_data()
{
    QTest::addColumn<PipelineSchedule>("schedule");
    QTest::addColumn<int>("virtualStages");
    QTest::addColumn<bool>("combined");
    QTest::newRow("1F1B") << PipelineSchedule::OneFOneB << 1 << false;
    QTest::newRow("1F1B combined") << PipelineSchedule::OneFOneB << 1 << true;
    QTest::newRow("interleaved x2") << PipelineSchedule::Interleaved << 2 << false;
    QTest::newRow("interleaved x3 combined") << PipelineSchedule::Interleaved << 3 << true;
    QTest::newRow("interleaved x4") << PipelineSchedule::Interleaved << 4 << false;
    QTest::newRow("GPipe") << PipelineSchedule::Gpipe << 1 << false;
}

void TstPipelineSchedule::memoryEquivalentScheduleHoldsWhatTheLongOneHolds()
{
    // The memory model replays the shorter schedule instead of the step's: it must pass through exactly the same
    // holdings (so the same peak whatever each chunk's size and transients) on every stage, for counts that are and
    // are not multiples of the stages.
    QFETCH(PipelineSchedule, schedule);
    QFETCH(int, virtualStages);
    QFETCH(bool, combined);
    for (int stages : { 1, 2, 3, 4, 8 }) {
        for (int microBatches = 1; microBatches <= 12 * stages + 5; ++microBatches) {
            const int shorter
                = rapid::parallel::memoryEquivalentMicroBatches(schedule, stages, microBatches, virtualStages);
            QVERIFY(shorter >= 1 && shorter <= microBatches);
            QCOMPARE(shorter % stages, microBatches % stages);
            const bool fallsBackToGpipe = schedule == PipelineSchedule::Interleaved && microBatches % stages != 0;
            if (schedule == PipelineSchedule::Gpipe || fallsBackToGpipe) {
                QCOMPARE(shorter, microBatches); // GPipe holds every micro-batch: nothing shorter holds as much
                continue;
            }
            QVERIFY(shorter < 4 * stages);
            const int chunks = schedule == PipelineSchedule::Interleaved ? virtualStages : 1;
            for (int stage = 0; stage < stages; ++stage) {
                const auto full
                    = rapid::parallel::pipelineSteps(schedule, stages, stage, microBatches, virtualStages, combined);
                const auto brief
                    = rapid::parallel::pipelineSteps(schedule, stages, stage, shorter, virtualStages, combined);
                QCOMPARE(holdings(brief, chunks), holdings(full, chunks));
                QCOMPARE(maxInFlight(brief), maxInFlight(full));
            }
        }
    }
}

QTEST_GUILESS_MAIN(TstPipelineSchedule)
#include "tst_pipelineschedule.moc"
