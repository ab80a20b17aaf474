// SPDX-License-Identifier: GPL-3.0-or-later
// Text-preserving edits: the workbench's form writes values into YAML without losing comments or layout.
#include "config/yamledit.h"

#include <QTest>

using rapid::config::setYamlValue;
using rapid::config::yamlScalarAt;

namespace {
const std::string kRun = "# a comment that must survive\n"
                         "run:\n"
                         "  mode: training   # trailing comment\n"
                         "  parallelism:\n"
                         "    tp: 8\n"
                         "    schedule: \"1f1b\"\n"
                         "    mapping: {tp: nvlink, dp: ib}\n"
                         "  dims:\n"
                         "    - name: a\n"
                         "      size: 4\n";
}

class TstYamlEdit : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void replacesScalarsInPlace_data();
    void replacesScalarsInPlace();
    void insertsMissingKeyBesideSiblings();
    void appendsAfterNestedValuesAndBeforeTrailingComments();
    void createsMissingSections();
    void rejectsUnparsableText();
    void readsScalars();
    void editableIsAParsingMapping();
    void replacesAListInPlace();
};

void TstYamlEdit::replacesScalarsInPlace_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected");
    QTest::addRow("plain_scalar") << "run.parallelism.tp"
                                  << "4"
                                  << QString::fromStdString(kRun).replace(
                                         QStringLiteral("tp: 8"), QStringLiteral("tp: 4"));
    QTest::addRow("keeps_trailing_comment")
        << "run.mode"
        << "inference"
        << QString::fromStdString(kRun).replace(QStringLiteral("mode: training"), QStringLiteral("mode: inference"));
    QTest::addRow("quoted_scalar") << "run.parallelism.schedule"
                                   << "gpipe"
                                   << QString::fromStdString(kRun).replace(
                                          QStringLiteral("\"1f1b\""), QStringLiteral("gpipe"));
    QTest::addRow("inside_flow_mapping") << "run.parallelism.mapping.tp"
                                         << "nvl"
                                         << QString::fromStdString(kRun).replace(
                                                QStringLiteral("{tp: nvlink"), QStringLiteral("{tp: nvl"));
    QTest::addRow("list_item") << "run.dims[0].size"
                               << "16"
                               << QString::fromStdString(kRun).replace(
                                      QStringLiteral("size: 4"), QStringLiteral("size: 16"));
}

void TstYamlEdit::replacesScalarsInPlace()
{
    QFETCH(QString, path);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    std::string why;
    const auto edited = setYamlValue(kRun, path.toStdString(), value.toStdString(), &why);
    QVERIFY2(edited.has_value(), why.c_str());
    QCOMPARE(QString::fromStdString(*edited), expected);
}

void TstYamlEdit::insertsMissingKeyBesideSiblings()
{
    const auto edited = setYamlValue(kRun, "run.parallelism.pp", "2");
    QVERIFY(edited);
    // After the mapping's last entry, above the next key of its parent.
    QVERIFY(edited->find("    mapping: {tp: nvlink, dp: ib}\n    pp: 2\n  dims:\n") != std::string::npos);
    QVERIFY(edited->find("# a comment that must survive") != std::string::npos);
    QCOMPARE(yamlScalarAt(*edited, "run.parallelism.pp").value_or(""), std::string("2"));
}

void TstYamlEdit::appendsAfterNestedValuesAndBeforeTrailingComments()
{
    const std::string model = "model:\n"
                              "  name: tiny\n"
                              "  moe:\n"
                              "    experts: 8\n"
                              "\n"
                              "  # the hardware follows\n"
                              "hardware: h100-sxm5-80gb";
    const auto edited = setYamlValue(model, "model.sliding_window", "4096");
    QVERIFY(edited);
    QCOMPARE(*edited,
        std::string("model:\n  name: tiny\n  moe:\n    experts: 8\n  sliding_window: 4096\n\n  # the hardware follows\n"
                    "hardware: h100-sxm5-80gb"));
    // A root key goes after the last line; a text without a final newline gets one first.
    const auto root = setYamlValue(model, "run", "training-preset");
    QVERIFY(root);
    QCOMPARE(*root, model + "\nrun: training-preset\n");
}

void TstYamlEdit::createsMissingSections()
{
    const auto edited = setYamlValue(kRun, "run.precision.compute", "bf16");
    QVERIFY(edited);
    QCOMPARE(yamlScalarAt(*edited, "run.precision.compute").value_or(""), std::string("bf16"));
    QCOMPARE(yamlScalarAt(*edited, "run.parallelism.tp").value_or(""), std::string("8"));
}

void TstYamlEdit::rejectsUnparsableText()
{
    std::string why;
    QVERIFY(!setYamlValue("run: [unclosed\n", "run.mode", "x", &why));
    QVERIFY(why.find("does not parse") != std::string::npos);
    QVERIFY(!setYamlValue(kRun, "run.dims[x", "1", &why));
}

void TstYamlEdit::readsScalars()
{
    QCOMPARE(yamlScalarAt(kRun, "run.parallelism.schedule").value_or(""), std::string("1f1b"));
    QVERIFY(!yamlScalarAt(kRun, "run.parallelism").has_value()); // a mapping, not a scalar
    QVERIFY(!yamlScalarAt(kRun, "run.nothing").has_value());
}

void TstYamlEdit::editableIsAParsingMapping()
{
    QVERIFY(rapid::config::yamlEditable("run:\n  name: x\n"));
    QVERIFY(rapid::config::yamlEditable("")); // an empty document: keys can be added
    QVERIFY(rapid::config::yamlEditable("# only a comment\n"));
    std::string why;
    QVERIFY(!rapid::config::yamlEditable("run: [1, 2\n", &why)); // half-typed
    QVERIFY2(why.find("does not parse") != std::string::npos, why.c_str());
    QVERIFY(!rapid::config::yamlEditable("- a\n- b\n", &why)); // a list, not keys
    QVERIFY2(why.find("not a mapping") != std::string::npos, why.c_str());
    QVERIFY(!rapid::config::yamlEditable("just text\n"));
}

void TstYamlEdit::replacesAListInPlace()
{
    using rapid::config::replaceYamlListInPlace;
    const std::string text = "# cluster\nhardware:\n  name: x  # keep me\n  faults:\n    - {link: a, health: 0.5}\n"
                             "    - {link: b, health: 0}\n  gpu: A100\n# tail\n";
    // The old list's two lines give way to one item; every other line stays byte for byte.
    QCOMPARE(*replaceYamlListInPlace(text, "hardware.faults", { "{link: c, health: 0.25}" }),
        std::string("# cluster\nhardware:\n  name: x  # keep me\n  faults:\n    - {link: c, health: 0.25}\n"
                    "  gpu: A100\n# tail\n"));
    // No items: the key goes.
    QCOMPARE(*replaceYamlListInPlace(text, "hardware.faults", {}),
        std::string("# cluster\nhardware:\n  name: x  # keep me\n  gpu: A100\n# tail\n"));
    // A missing list goes after the mapping's last line, before the comments that follow it.
    QCOMPARE(*replaceYamlListInPlace("hardware:\n  name: x\n# tail\n", "hardware.faults", { "1" }),
        std::string("hardware:\n  name: x\n  faults:\n    - 1\n# tail\n"));
    // Layouts the line scan does not cover are left to setYamlValue.
    QVERIFY(!replaceYamlListInPlace("hardware: {name: x}\n", "hardware.faults", { "1" }));
    QVERIFY(!replaceYamlListInPlace(text, "hardware.cluster.faults", { "1" }));
}

QTEST_GUILESS_MAIN(TstYamlEdit)
#include "tst_yamledit.moc"
