// SPDX-License-Identifier: GPL-3.0-or-later
// Megatron-Core's combined 1F1B: one layer's forward beside another micro-batch's backward on a compute and a
// communication stream. Every expected time below is the timeline worked out by hand (pieces in seconds).
#include "sim/combinedonefoneb.h"

#include <QTest>

#include <cmath>
#include <vector>

using rapid::sim::coScheduledSeconds;
using rapid::sim::LayerPassPieces;

namespace {

/// attention | dispatch | experts | combine (forward).
LayerPassPieces forwardPass(double attention, double dispatch, double experts, double combine)
{
    return { attention, dispatch, experts, 0, combine };
}

/// combine | experts | expert weights | dispatch | attention (backward).
LayerPassPieces backwardPass(double combine, double experts, double weights, double dispatch, double attention)
{
    return { attention, dispatch, experts, weights, combine };
}

bool near(double actual, double expected)
{
    return std::fabs(actual - expected) <= 1e-12 * std::max(1.0, expected);
}

} // namespace

class TstCombinedOneFOneB : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aPassAloneRunsItsPiecesInTurn();
    void eachPassesCollectivesHideBehindTheOthersCompute();
    void delayedWeightGradientsLetTheBackwardDispatchLeaveEarlier();
    void collectivesSlowTheComputeBesideThem();
    void layersLeftOverRunAlone();
    void badInputIsRefused();
};

void TstCombinedOneFOneB::aPassAloneRunsItsPiecesInTurn()
{
    // Each piece waits for the one before it: a warm-up forward or a cool-down backward takes its whole length.
    const std::vector<LayerPassPieces> forward { forwardPass(1, 2, 1, 2), forwardPass(1, 2, 1, 2) };
    QVERIFY(near(coScheduledSeconds(forward, {}, 0.2), 12));
    const std::vector<LayerPassPieces> backward { backwardPass(2, 1, 0, 2, 2) };
    QVERIFY(near(coScheduledSeconds({}, backward, 0.2), 7));
    // Delayed weight gradients run beside the pass's own dispatch even alone: C [0,2], E [2,3], W from 3 at 0.8 of
    // its rate beside D [3,5] (0.5 s of work ends at 3.625), A [5,7]: 7 s, not 7.5.
    const std::vector<LayerPassPieces> delayed { backwardPass(2, 1, 0.5, 2, 2) };
    QVERIFY(near(coScheduledSeconds({}, delayed, 0.2), 7));
}

void TstCombinedOneFOneB::eachPassesCollectivesHideBehindTheOthersCompute()
{
    // Forward A1 D2 E1 C2, backward C2 E1 W0 D2 A2:
    //   comm:    Cb [0,2]  Df [2,4]  Db [4,6]  Cf [6,8]
    //   compute: Af [0,1]  Eb [2,3]  Ef [4,5]  Ab [6,8]
    // 8 s against 6 + 7 = 13 one after the other: the collectives (8 s) are the step, the compute hides behind them.
    const std::vector<LayerPassPieces> forward { forwardPass(1, 2, 1, 2) };
    const std::vector<LayerPassPieces> backward { backwardPass(2, 1, 0, 2, 2) };
    QVERIFY(near(coScheduledSeconds(forward, backward, 0), 8));
    // Two layers: the second pair's backward combine waits for the first's forward combine on the stream (ends 8),
    // its forward attention for that combine too: the same 8 s again.
    const std::vector<LayerPassPieces> forward2 { forward[0], forward[0] };
    const std::vector<LayerPassPieces> backward2 { backward[0], backward[0] };
    QVERIFY(near(coScheduledSeconds(forward2, backward2, 0), 16));
}

void TstCombinedOneFOneB::delayedWeightGradientsLetTheBackwardDispatchLeaveEarlier()
{
    // Forward A1 D1 E0.5 C1, backward C1 and experts of 4 s (2 s input gradients, 2 s weight gradients), D3, A1.
    // Weight gradients with the input gradients: Cb [0,1], Af [0,1], Eb [1,5], Df [1,2], Db waits for Eb: [5,8],
    //   Ef [5,5.5], Cf [8,9], Ab [8,9]: 9 s.
    // Delayed: Eb [1,3], Wb [3,5], Db [3,6], Ef [5,5.5], Cf [6,7], Ab [6,7]: 7 s.
    const std::vector<LayerPassPieces> forward { forwardPass(1, 1, 0.5, 1) };
    QVERIFY(near(coScheduledSeconds(forward, std::vector { backwardPass(1, 4, 0, 3, 1) }, 0), 9));
    QVERIFY(near(coScheduledSeconds(forward, std::vector { backwardPass(1, 2, 2, 3, 1) }, 0), 7));
}

void TstCombinedOneFOneB::collectivesSlowTheComputeBesideThem()
{
    // Forward A1 D1 E1 C1, backward C1 E2 W0 D1 A2, compute at half rate while a collective runs (share 0.5):
    //   Cb [0,1] with Af at half rate (0.5 done), Af alone to 1.5; Df [1.5,2.5]; Eb from 1.5: half rate to 2.5
    //   (0.5 done), full rate to 4; Db [4,5]; Ef from 4: half rate to 5 (0.5 done), to 5.5; Cf [5.5,6.5];
    //   Ab from 5.5: half rate to 6.5 (0.5 done), to 8: 8 s (6 s at share 0, the compute's own length).
    const std::vector<LayerPassPieces> forward { forwardPass(1, 1, 1, 1) };
    const std::vector<LayerPassPieces> backward { backwardPass(1, 2, 0, 1, 2) };
    QVERIFY(near(coScheduledSeconds(forward, backward, 0), 6));
    QVERIFY(near(coScheduledSeconds(forward, backward, 0.5), 8));
    // The first example (8 s at share 0): Af, Eb and Ef, slowed to twice their length, still end with the collective
    // beside them (2, 4, 6), but the backward attention (2 s from 6) is at half rate while Cf runs to 8 and ends at 9.
    QVERIFY(near(
        coScheduledSeconds(std::vector { forwardPass(1, 2, 1, 2) }, std::vector { backwardPass(2, 1, 0, 2, 2) }, 0.5),
        9));
}

void TstCombinedOneFOneB::layersLeftOverRunAlone()
{
    // A dense layer (its whole pass as attention) paired with a MoE backward, then the forward's MoE layer alone:
    //   pair: Cb [0,2], Af (dense, 3) [0,3], Eb [3,4], Db [4,6], Ab [6,8]; then A1 D2 E1 C2 in turn: 8 + 6 = 14.
    const std::vector<LayerPassPieces> forward { forwardPass(3, 0, 0, 0), forwardPass(1, 2, 1, 2) };
    const std::vector<LayerPassPieces> backward { backwardPass(2, 1, 0, 2, 2) };
    QVERIFY(near(coScheduledSeconds(forward, backward, 0), 14));
}

void TstCombinedOneFOneB::badInputIsRefused()
{
    const std::vector<LayerPassPieces> forward { forwardPass(1, -1, 1, 1) };
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, coScheduledSeconds(forward, {}, 0));
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument, coScheduledSeconds(std::vector { forwardPass(1, 1, 1, 1) }, {}, 1.0));
}

QTEST_GUILESS_MAIN(TstCombinedOneFOneB)
#include "tst_combinedonefoneb.moc"
