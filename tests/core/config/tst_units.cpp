// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/units.h"

#include <QTest>

using rapid::config::Dimension;

class TstUnits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parsesQuantities_data();
    void parsesQuantities();
    void rejectsBadQuantities_data();
    void rejectsBadQuantities();
};

void TstUnits::parsesQuantities_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("dimension");
    QTest::addColumn<double>("expected");
    // Expected values from the unit definitions: decimal prefixes are powers of ten, binary ones powers of two.
    QTest::addRow("terabytes_per_second") << "1.5 TB/s" << int(Dimension::BytesPerSecond) << 1.5e12;
    QTest::addRow("gigabytes_per_second_no_space") << "900GB/s" << int(Dimension::BytesPerSecond) << 9e11;
    QTest::addRow("gigabits_per_second") << "400 Gb/s" << int(Dimension::BytesPerSecond) << 5e10;
    QTest::addRow("gibibytes") << "80 GiB" << int(Dimension::Bytes) << 80.0 * 1073741824.0;
    QTest::addRow("gigabytes") << "40 GB" << int(Dimension::Bytes) << 4e10;
    QTest::addRow("nanoseconds") << "700 ns" << int(Dimension::Seconds) << 7e-7;
    QTest::addRow("microseconds") << "4 us" << int(Dimension::Seconds) << 4e-6;
    QTest::addRow("gigahertz") << "1.41 GHz" << int(Dimension::Hertz) << 1.41e9;
    QTest::addRow("teraflops") << "312 TFLOP/s" << int(Dimension::FlopsPerSecond) << 3.12e14;
    QTest::addRow("watts") << "700 W" << int(Dimension::Watts) << 700.0;
    QTest::addRow("picojoules") << "0.5 pJ" << int(Dimension::Joules) << 5e-13;
    QTest::addRow("plain_number") << "0.75" << int(Dimension::Dimensionless) << 0.75;
}

void TstUnits::parsesQuantities()
{
    QFETCH(QString, text);
    QFETCH(int, dimension);
    QFETCH(double, expected);
    std::string why;
    const auto value = rapid::config::parseQuantity(text.toStdString(), Dimension(dimension), &why);
    QVERIFY2(value.has_value(), why.c_str());
    QCOMPARE(*value, expected);
}

void TstUnits::rejectsBadQuantities_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("dimension");
    QTest::addColumn<QString>("reason");
    QTest::addRow("missing_unit") << "3350" << int(Dimension::BytesPerSecond) << "has no unit";
    QTest::addRow("size_given_for_bandwidth") << "3 TB" << int(Dimension::BytesPerSecond) << "is not right here";
    QTest::addRow("unknown_unit") << "80 XB" << int(Dimension::Bytes) << "unknown unit";
    QTest::addRow("no_number") << "fast" << int(Dimension::Seconds) << "expected a time";
    QTest::addRow("not_finite") << "inf GB/s" << int(Dimension::BytesPerSecond) << "expected";
}

void TstUnits::rejectsBadQuantities()
{
    QFETCH(QString, text);
    QFETCH(int, dimension);
    QFETCH(QString, reason);
    std::string why;
    QVERIFY(!rapid::config::parseQuantity(text.toStdString(), Dimension(dimension), &why).has_value());
    QVERIFY2(QString::fromStdString(why).contains(reason), why.c_str());
}

QTEST_GUILESS_MAIN(TstUnits)
#include "tst_units.moc"
