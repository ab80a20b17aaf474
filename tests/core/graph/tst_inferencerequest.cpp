// SPDX-License-Identifier: GPL-3.0-or-later
// The inference request graph: stage-to-stage sends per step, the token hand-back between steps, node counts and
// the executed length derived by hand.
#include "graph/inferencerequest.h"
#include "sim/graphexecutor.h"

#include <QTest>

using namespace rapid;

class TestInferenceRequest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void threeStagesFourTokens()
    {
        // Stages take 3, 2, 1 ms of prefill and 0.3, 0.2, 0.1 ms per decode step; sends 0.5 ms (prefill), 0.05 ms
        // (decode), hand-back 0.01 ms. Four output tokens: the prefill and 3 decode steps.
        graph::InferenceRequestCosts costs;
        costs.prefillSeconds = { 3e-3, 2e-3, 1e-3 };
        costs.decodeSeconds = { 0.3e-3, 0.2e-3, 0.1e-3 };
        costs.prefillSendSeconds = 0.5e-3;
        costs.decodeSendSeconds = 0.05e-3;
        costs.returnSendSeconds = 0.01e-3;
        costs.outputTokens = 4;
        const graph::ExecutionGraph graph = graph::buildInferenceRequest(costs);
        // Per step 3 compute nodes and 2 forward sends, plus a hand-back after every step but the last: 12 + 8 + 3.
        QCOMPARE(graph.nodes().size(), size_t { 23 });
        // Everything is sequential: prefill 6 ms + 2 sends 1 ms + hand-back 0.01 ms, then each decode step 0.6 ms +
        // 0.1 ms of sends, with a hand-back between steps (2 more): 7.01 + 3 * 0.7 + 2 * 0.01 = 9.13 ms.
        const sim::Schedule schedule = sim::executeGraph(graph);
        QVERIFY(std::abs(schedule.makespan - 9.13e-3) < 1e-12);
    }

    void oneStageIsAChain()
    {
        graph::InferenceRequestCosts costs;
        costs.prefillSeconds = { 2e-3 };
        costs.decodeSeconds = { 0.5e-3 };
        costs.outputTokens = 5;
        const graph::ExecutionGraph graph = graph::buildInferenceRequest(costs);
        QCOMPARE(graph.nodes().size(), size_t { 5 });
        QVERIFY(std::abs(sim::executeGraph(graph).makespan - 4e-3) < 1e-12);
        costs.decodeSeconds.clear();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, graph::buildInferenceRequest(costs));
    }
};

QTEST_APPLESS_MAIN(TestInferenceRequest)
#include "tst_inferencerequest.moc"
