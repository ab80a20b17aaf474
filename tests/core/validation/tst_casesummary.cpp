// SPDX-License-Identifier: GPL-3.0-or-later
// What `rapid validate` prints beside a dataset's figure (validation/casesummary.h): the figures per group and the
// worst cases, on hand-made results whose sums are worked out in the comments.
#include "validation/casesummary.h"

#include <QTest>

#include <cmath>

using namespace rapid;
using validation::CaseResult;
using validation::DatasetResult;
using validation::ValidationCase;

namespace {

/// A result over @p sources: one evaluated case of the given signed error each, or a failure where the error is NaN.
DatasetResult resultOf(const std::vector<ValidationCase>& sources, const std::vector<double>& errors)
{
    DatasetResult result;
    for (size_t i = 0; i < sources.size(); ++i) {
        CaseResult c;
        c.source = &sources[i];
        if (std::isnan(errors[i])) {
            c.failure = "could not be evaluated";
        } else {
            c.errorPercent = errors[i];
        }
        result.cases.push_back(c);
    }
    return result;
}

ValidationCase inGroup(const std::string& group)
{
    ValidationCase c;
    c.group = group;
    return c;
}

} // namespace

class TstCaseSummary : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void groupsCountAFailureAsAHundredPercentAndSortByShare();
    void noGroupNoSummary();
    void worstCasesPutFailuresFirstThenTheLargestError();
    void aLargeSetListsItsWorstCasesUnlessEveryOneIsAsked();
    void medianOfOddEvenAndNone();
};

void TstCaseSummary::groupsCountAFailureAsAHundredPercentAndSortByShare()
{
    // A: +10 and -30 -> 40 absolute, MAPE 20, median -10. B: +5 and a failure (100) -> 105, MAPE 52.5, median +5 (the
    // evaluated case only). One case without a group, +20, counts in the total only: 40 + 105 + 20 = 165.
    const std::vector<ValidationCase> sources { inGroup("A"), inGroup("B"), inGroup("A"), inGroup(""), inGroup("B") };
    const DatasetResult result = resultOf(sources, { 10, 5, -30, 20, NAN });
    const std::vector<validation::GroupSummary> groups = validation::summarizeGroups(result);
    QCOMPARE(groups.size(), size_t(2));
    QCOMPARE(groups[0].group, std::string("B"));
    QCOMPARE(groups[0].cases, size_t(2));
    QCOMPARE(groups[0].failed, size_t(1));
    QCOMPARE(groups[0].meanAbsolutePercentageError, 52.5);
    QCOMPARE(groups[0].medianSignedErrorPercent, 5.0);
    QVERIFY(std::abs(groups[0].shareOfAbsoluteError - 105.0 / 165.0) < 1e-12);
    QCOMPARE(groups[1].group, std::string("A"));
    QCOMPARE(groups[1].cases, size_t(2));
    QCOMPARE(groups[1].failed, size_t(0));
    QCOMPARE(groups[1].meanAbsolutePercentageError, 20.0);
    QCOMPARE(groups[1].medianSignedErrorPercent, -10.0);
    QVERIFY(std::abs(groups[1].shareOfAbsoluteError - 40.0 / 165.0) < 1e-12);
}

void TstCaseSummary::noGroupNoSummary()
{
    const std::vector<ValidationCase> sources { inGroup(""), inGroup("") };
    QVERIFY(validation::summarizeGroups(resultOf(sources, { 3, -4 })).empty());
}

void TstCaseSummary::worstCasesPutFailuresFirstThenTheLargestError()
{
    const std::vector<ValidationCase> sources(5);
    const DatasetResult result = resultOf(sources, { 10, -30, NAN, 30, 2 });
    const std::vector<const CaseResult*> worst = validation::worstCases(result, 3);
    QCOMPARE(worst.size(), size_t(3));
    QCOMPARE(worst[0], &result.cases[2]); // the failure
    QCOMPARE(worst[1], &result.cases[1]); // |-30|, before the equal +30 that comes later in the dataset
    QCOMPARE(worst[2], &result.cases[3]);
    QCOMPARE(validation::worstCases(result, 99).size(), size_t(5));
}

void TstCaseSummary::aLargeSetListsItsWorstCasesUnlessEveryOneIsAsked()
{
    // At kListEveryCaseUpTo cases every case is listed in order; one more and only the worst kWorstCasesListed are.
    std::vector<ValidationCase> sources(validation::kListEveryCaseUpTo);
    std::vector<double> errors;
    for (size_t i = 0; i < sources.size(); ++i) {
        errors.push_back(static_cast<double>(i));
    }
    DatasetResult result = resultOf(sources, errors);
    std::vector<const CaseResult*> listed = validation::listedCases(result, false);
    QCOMPARE(listed.size(), sources.size());
    QCOMPARE(listed.front(), &result.cases.front());

    sources.emplace_back();
    errors.push_back(-1000);
    result = resultOf(sources, errors);
    listed = validation::listedCases(result, false);
    QCOMPARE(listed.size(), validation::kWorstCasesListed);
    QCOMPARE(listed.front(), &result.cases.back()); // -1000%, the worst
    QCOMPARE(listed[1], &result.cases[validation::kListEveryCaseUpTo - 1]); // then 49%
    QCOMPARE(validation::listedCases(result, true).size(), sources.size());
}

void TstCaseSummary::medianOfOddEvenAndNone()
{
    QCOMPARE(validation::median({}), 0.0);
    QCOMPARE(validation::median({ 3, 1, 2 }), 2.0);
    QCOMPARE(validation::median({ 4, 1, 3, 2 }), 2.5);
}

QTEST_APPLESS_MAIN(TstCaseSummary)
#include "tst_casesummary.moc"
