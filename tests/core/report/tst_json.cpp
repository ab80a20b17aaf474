// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON writer every output goes through: a non-finite number is refused with its key path (JSON has no NaN or
// infinity, and null would be a silent wrong number); finite documents read back exactly.
#include "report/json.h"

#include <QTest>

#include <cmath>
#include <limits>

using rapid::report::Json;

class TstJson : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void refusesNonFiniteNumbersNamingTheKey();
    void finiteDocumentsReadBackExactly();
    void invalidUtf8IsReplacedNotFatal();
};

void TstJson::refusesNonFiniteNumbersNamingTheKey()
{
    const Json nan = { { "breakdown_s", { { "attention", std::nan("") } } } };
    try {
        rapid::report::jsonText(nan);
        QFAIL("NaN was written");
    } catch (const rapid::report::NonFiniteJson& error) {
        QVERIFY2(std::string(error.what()).find("breakdown_s.attention") != std::string::npos, error.what());
    }
    const Json infinite = { { "links",
        Json::array({ Json { { "utilisation", 0.5 } },
            Json { { "utilisation", std::numeric_limits<double>::infinity() } } }) } };
    try {
        rapid::report::jsonText(infinite);
        QFAIL("infinity was written");
    } catch (const rapid::report::NonFiniteJson& error) {
        QVERIFY2(std::string(error.what()).find("links[1].utilisation") != std::string::npos, error.what());
    }
}

void TstJson::finiteDocumentsReadBackExactly()
{
    // 0.1 + 0.2 has no short decimal form: the text must still read back to the same double.
    const double value = 0.1 + 0.2;
    const Json document = { { "b", value }, { "a", 1 } };
    const std::string text = rapid::report::jsonText(document, -1);
    QCOMPARE(text.substr(0, 5), std::string("{\"b\":")); // keys in the order written
    QCOMPARE(Json::parse(text).at("b").get<double>(), value);
}

void TstJson::invalidUtf8IsReplacedNotFatal()
{
    // A trace node name read from a damaged .et file is not valid UTF-8; the report still writes.
    const Json document = { { "name", std::string("rank \xff\xfe") } };
    const std::string text = rapid::report::jsonText(document, -1);
    QVERIFY(Json::parse(text).at("name").get<std::string>().find("rank ") == 0);
}

QTEST_GUILESS_MAIN(TstJson)
#include "tst_json.moc"
