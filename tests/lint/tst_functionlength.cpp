// SPDX-License-Identifier: GPL-3.0-or-later
// The function finder behind lint_function_length, on small sources whose spans are counted by hand.
#include "functionlength.h"

#include <QTest>

using rapid::lint::findFunctions;

namespace {

/// A function named @p name whose body has @p bodyLines lines between its braces: bodyLines + 2 lines in all.
std::string functionOf(const std::string& name, int bodyLines)
{
    std::string text = "int " + name + "(int a)\n{\n";
    for (int i = 0; i < bodyLines; ++i) {
        text += "    a += " + std::to_string(i) + ";\n";
    }
    return text + "}\n";
}

} // namespace

class TstFunctionLength : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void measuresFromSignatureToClosingBrace();
    void bracesInLiteralsAndCommentsDoNotCount();
    void classMembersLambdasAndInitialisers();
};

void TstFunctionLength::measuresFromSignatureToClosingBrace()
{
    // 118 body lines + "{" + "}" + the signature = 121 lines; 117 body lines = 120.
    const auto functions = findFunctions(
        "namespace x {\n" + functionOf("tooLong", 118) + functionOf("justRight", 117) + "} // namespace x\n");
    QCOMPARE(functions.size(), size_t(2));
    QCOMPARE(functions[0].name, std::string("tooLong"));
    QCOMPARE(functions[0].firstLine, 2);
    QCOMPARE(functions[0].lines(), 121);
    QCOMPARE(functions[1].name, std::string("justRight"));
    QCOMPARE(functions[1].lines(), 120);
}

void TstFunctionLength::bracesInLiteralsAndCommentsDoNotCount()
{
    const std::string source = "void f()\n"
                               "{\n"
                               "    const char* a = \"}}}\"; // }\n"
                               "    /* } { */ char b = '}';\n"
                               "    auto c = R\"x(}\n})x\";\n"
                               "#define BRACE }\n"
                               "}\n"
                               "void g() {}\n";
    const auto functions = findFunctions(source);
    QCOMPARE(functions.size(), size_t(2));
    QCOMPARE(functions[0].name, std::string("f"));
    QCOMPARE(functions[0].lastLine, 8);
    QCOMPARE(functions[1].name, std::string("g"));
    QCOMPARE(functions[1].firstLine, 9);
}

void TstFunctionLength::classMembersLambdasAndInitialisers()
{
    const std::string source = "const std::map<int, int> table = { { 1, 2 }, { 3, 4 } };\n" // an initialiser
                               "enum class E { A, B };\n"
                               "class C : public B {\n"
                               "public:\n"
                               "    int size() const { return m_size; }\n"
                               "    C(int s)\n"
                               "        : m_size(s)\n"
                               "    {\n"
                               "        auto l = [](int x) { return x; };\n"
                               "    }\n"
                               "    int m_size = 0;\n"
                               "};\n";
    const auto functions = findFunctions(source);
    QCOMPARE(functions.size(), size_t(2));
    QCOMPARE(functions[0].name, std::string("size"));
    QCOMPARE(functions[0].lines(), 1);
    QCOMPARE(functions[1].name, std::string("C"));
    QCOMPARE(functions[1].firstLine, 6);
    QCOMPARE(functions[1].lastLine, 10);
}

QTEST_GUILESS_MAIN(TstFunctionLength)
#include "tst_functionlength.moc"
