// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench window driven like a user would: keyboard edits in forms and YAML tabs, inline errors, the
// diagnostics list, save and reload, the autosave banner, and screenshots of the result.
#include "editors/configform.h"
#include "editors/diagnosticspanel.h"
#include "editors/fieldeditor.h"
#include "editors/restorebanner.h"
#include "editors/workspacedocument.h"
#include "editors/yamleditor.h"
#include "mainwindow.h"
#include "results/resultspanel.h"
#include "results/summaryfigures.h"
#include "widgettestutils.h"

#include "config/schema.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFontDatabase>
#include <QFontInfo>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace rapid;
using rapid::test::kWorkspacePreset;
using rapid::test::openWindow;
using rapid::test::spinBox;
using rapid::test::typeIntoSpinBox;
using rapid::widgets::DocumentKind;
using rapid::widgets::MainWindow;

namespace {

/// Selects @p oldText's last @p replaced characters in the editor and types @p newText over them.
bool typeOver(QPlainTextEdit* edit, const QString& oldText, int replaced, const QString& newText)
{
    QTextCursor found = edit->document()->find(oldText);
    if (found.isNull()) {
        return false;
    }
    found.setPosition(found.selectionEnd() - replaced);
    found.setPosition(found.position() + replaced, QTextCursor::KeepAnchor);
    edit->setTextCursor(found);
    edit->setFocus();
    QTest::keyClicks(edit, newText);
    return true;
}

void saveScreenshot(QWidget& window, const QString& fileName)
{
    QCoreApplication::processEvents();
    QVERIFY(test::saveScreenshot(window.grab(), fileName));
}

} // namespace

class TstMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void formEditWritesYamlAndUndoes();
    void saveThenReloadInNewWindow();
    void invalidTpShowsInlineErrorAndDiagnostic();
    void formFieldsFollowTheSchema();
    void typingYamlUpdatesForm();
    void autosaveOffersRestoreInNewWindow();
    void screenshots();
};

void TstMainWindow::initTestCase()
{
    // Settings and autosaves go to a throwaway test location, never the real home.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RAPID-LLM-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    QCoreApplication::setApplicationVersion(QStringLiteral("0.0-test"));
}

void TstMainWindow::init()
{
    QDir(widgets::AutosaveStore().directory()).removeRecursively();
}

void TstMainWindow::formEditWritesYamlAndUndoes()
{
    auto window = openWindow();
    QVERIFY(window);
    widgets::WorkspaceDocument* document = window->document();
    QSpinBox* tp = spinBox(*window, QStringLiteral("run.parallelism.tp"));
    QVERIFY(tp);
    QCOMPARE(tp->value(), 8);
    QVERIFY(!window->windowTitle().contains(QLatin1Char('*')));

    typeIntoSpinBox(tp, QStringLiteral("4"));
    QCOMPARE(tp->value(), 4);
    const QString text = document->text(DocumentKind::Run);
    QVERIFY2(text.contains(QLatin1String("\n    tp: 4\n")), qPrintable(text));
    QVERIFY(text.contains(QLatin1String("# Source: illustrative example written for this project")));
    QVERIFY(text.contains(QLatin1String("#   Dubey et al. 2024")));
    QVERIFY(window->windowTitle().contains(QLatin1Char('*')));
    QCOMPARE(document->undoStack()->count(), 1);
    // The YAML tab shows the same text.
    QCOMPARE(window->yamlEditor()->editor(DocumentKind::Run)->toPlainText(), text);

    document->undoStack()->undo();
    QVERIFY(document->text(DocumentKind::Run).contains(QLatin1String("\n    tp: 8\n")));
    QCOMPARE(tp->value(), 8);
    QVERIFY(!document->isDirty());
    QVERIFY(!window->windowTitle().contains(QLatin1Char('*')));
    document->undoStack()->redo();
    QCOMPARE(tp->value(), 4);
}

void TstMainWindow::saveThenReloadInNewWindow()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(QStringLiteral("saved.rapid.yaml"));
    auto first = openWindow();
    QVERIFY(first);
    typeIntoSpinBox(spinBox(*first, QStringLiteral("run.training.micro_batch")), QStringLiteral("2"));
    QVERIFY(first->saveWorkspace(path));
    QVERIFY(!first->document()->isDirty());
    QVERIFY(first->windowTitle().contains(QLatin1String("saved.rapid.yaml")));

    auto second = openWindow(path);
    QVERIFY(second);
    for (DocumentKind kind : widgets::kAllDocumentKinds) {
        QCOMPARE(second->document()->text(kind), first->document()->text(kind));
    }
    const auto& a = first->document()->scenario();
    const auto& b = second->document()->scenario();
    QVERIFY(a && b);
    QCOMPARE(b->name, a->name);
    QVERIFY(b->model == a->model);
    QVERIFY(b->hardware == a->hardware);
    QVERIFY(b->run == a->run);
    QCOMPARE(spinBox(*second, QStringLiteral("run.training.micro_batch"))->value(), 2);
    QVERIFY(!second->restoreBanner()->isVisible());
}

void TstMainWindow::formFieldsFollowTheSchema()
{
    // The form takes range, choices, default and tooltip from core/config's schema (the readers' table), so a
    // schema change reaches the form with no edit in widgets/.
    auto window = openWindow();
    QVERIFY(window);
    const config::schema::Key& zero = config::schema::at(config::schema::Document::Run, "parallelism.zero_stage");
    QSpinBox* zeroSpin = spinBox(*window, QStringLiteral("run.parallelism.zero_stage"));
    QCOMPARE(zeroSpin->maximum(), static_cast<int>(zero.maximum)); // 3
    QCOMPARE(zeroSpin->minimum(), static_cast<int>(zero.minimum) - 1); // one below: "absent, default 0"
    QCOMPARE(zeroSpin->specialValueText(), QStringLiteral("default: ") + QString::fromStdString(zero.defaultValue));
    QVERIFY(zeroSpin->toolTip().contains(QString::fromStdString(zero.doc)));

    widgets::FieldEditor* schedule
        = window->form(DocumentKind::Run)->fieldEditor(QStringLiteral("run.parallelism.schedule"));
    QVERIFY(schedule);
    auto* combo = qobject_cast<QComboBox*>(schedule->editorWidget());
    QVERIFY(combo);
    const auto& words = config::schema::at(config::schema::Document::Run, "parallelism.schedule").choices;
    QCOMPARE(combo->count(), static_cast<int>(words.size()));
    for (int i = 0; i < combo->count(); ++i) {
        QCOMPARE(combo->itemText(i).toStdString(), words[static_cast<size_t>(i)]);
    }
    // A quantity field edits the key under the unit suffix the schema documents.
    QVERIFY(window->form(DocumentKind::Hardware)
                ->fieldEditor(QStringLiteral("hardware.gpu.")
                    + QString::fromStdString(
                        config::schema::at(config::schema::Document::Gpu, "hbm.bandwidth").writtenPath())));
}

void TstMainWindow::invalidTpShowsInlineErrorAndDiagnostic()
{
    auto window = openWindow();
    QVERIFY(window);
    QSignalSpy diagnosticsChanged(window->document(), &widgets::WorkspaceDocument::diagnosticsChanged);
    typeIntoSpinBox(spinBox(*window, QStringLiteral("run.parallelism.tp")), QStringLiteral("3"));
    QVERIFY(diagnosticsChanged.count() >= 1);

    widgets::FieldEditor* field = window->form(DocumentKind::Run)->fieldEditor(QStringLiteral("run.parallelism.tp"));
    QVERIFY(field);
    QVERIFY2(field->problem().contains(QLatin1String("run.parallelism.tp")), qPrintable(field->problem()));
    auto* label = window->findChild<QLabel*>(QStringLiteral("fieldProblem:run.parallelism.tp"));
    QVERIFY(label);
    QVERIFY(label->isVisible());
    QVERIFY(label->text().contains(QLatin1String("must divide")));
    QCOMPARE(field->editorWidget()->toolTip(), field->problem());
    // Fields without a problem stay plain.
    QVERIFY(
        window->form(DocumentKind::Run)->fieldEditor(QStringLiteral("run.training.seq_length"))->problem().isEmpty());

    QListWidget* list = window->diagnosticsPanel()->list();
    const QRegularExpression located(QStringLiteral(R"(^run:(\d+):(\d+): run\.parallelism\.tp: )"));
    QListWidgetItem* tpItem = nullptr;
    QRegularExpressionMatch match;
    for (int row = 0; row < list->count() && !tpItem; ++row) {
        match = located.match(list->item(row)->text());
        if (match.hasMatch()) {
            tpItem = list->item(row);
        }
    }
    QVERIFY2(tpItem, qPrintable(list->count() ? list->item(0)->text() : QStringLiteral("empty list")));
    const int line = match.captured(1).toInt();
    QVERIFY(window->document()
                ->text(DocumentKind::Run)
                .split(QLatin1Char('\n'))
                .at(line - 1)
                .contains(QLatin1String("tp: 3")));

    // Double-click jumps to the YAML tab at that line (a click first, as a real double-click starts with one).
    const QRect itemRect = list->visualItemRect(tpItem);
    QSignalSpy activated(window->diagnosticsPanel(), &widgets::DiagnosticsPanel::locationActivated);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, itemRect.center());
    QTest::mouseDClick(list->viewport(), Qt::LeftButton, {}, itemRect.center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(window->mainTabs()->currentWidget(), window->yamlEditor());
    QPlainTextEdit* runEditor = window->yamlEditor()->editor(DocumentKind::Run);
    QCOMPARE(window->yamlEditor()->currentWidget(), runEditor);
    QCOMPARE(runEditor->textCursor().blockNumber(), line - 1);
    QVERIFY(!runEditor->extraSelections().isEmpty()); // the offending line is marked
}

void TstMainWindow::typingYamlUpdatesForm()
{
    auto window = openWindow();
    QVERIFY(window);
    window->mainTabs()->setCurrentWidget(window->yamlEditor());
    window->yamlEditor()->setCurrentWidget(window->yamlEditor()->editor(DocumentKind::Run));
    QPlainTextEdit* edit = window->yamlEditor()->editor(DocumentKind::Run);

    // pp 4 -> 2 and dp 2 -> 4 keep 8*2*4 = 64 GPUs, so the result is valid again.
    QVERIFY(typeOver(edit, QStringLiteral("pp: 4"), 1, QStringLiteral("2")));
    QCOMPARE(spinBox(*window, QStringLiteral("run.parallelism.pp"))->value(), 2);
    QVERIFY(typeOver(edit, QStringLiteral("dp: 2"), 1, QStringLiteral("4")));
    QCOMPARE(spinBox(*window, QStringLiteral("run.parallelism.dp"))->value(), 4);
    QVERIFY(window->document()->text(DocumentKind::Run).contains(QLatin1String("\n    pp: 2\n")));
    QVERIFY(window->document()->diagnostics().empty());
    QCOMPARE(window->document()->scenario()->run.parallelism.pp, 2);
    // A burst of typing is one undo step.
    QCOMPARE(window->document()->undoStack()->count(), 1);

    // Half-typed YAML does not parse: the form keeps its values and nothing crashes.
    QVERIFY(typeOver(edit, QStringLiteral("pp: 2"), 0, QStringLiteral(": [")));
    QVERIFY(!window->document()->diagnostics().empty());
    QCOMPARE(spinBox(*window, QStringLiteral("run.parallelism.pp"))->value(), 2);

    window->document()->undoStack()->undo();
    QCOMPARE(spinBox(*window, QStringLiteral("run.parallelism.pp"))->value(), 4);
    QCOMPARE(edit->toPlainText(), window->document()->text(DocumentKind::Run));
}

void TstMainWindow::autosaveOffersRestoreInNewWindow()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(QStringLiteral("autosaved.rapid.yaml"));
    QString editedText;
    QString autosavePath;
    {
        auto first = openWindow();
        QVERIFY(first);
        QVERIFY(first->saveWorkspace(path));
        first->setAutosaveDelay(20);
        typeIntoSpinBox(spinBox(*first, QStringLiteral("run.training.global_batch")), QStringLiteral("256"));
        editedText = first->document()->text(DocumentKind::Run);
        QVERIFY(editedText.contains(QLatin1String("global_batch: 256")));
        autosavePath = first->autosaveStore().pathFor(first->document()->name());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosavePath), 3000);
        // The window goes away without saving, as in a crash.
    }

    auto second = openWindow(path);
    QVERIFY(second);
    QVERIFY(second->document()->text(DocumentKind::Run).contains(QLatin1String("global_batch: 512")));
    widgets::RestoreBanner* banner = second->restoreBanner();
    QVERIFY(banner->isVisible());
    QTest::mouseClick(banner->restoreButton(), Qt::LeftButton);
    QVERIFY(!banner->isVisible());
    QCOMPARE(second->document()->text(DocumentKind::Run), editedText);
    QCOMPARE(spinBox(*second, QStringLiteral("run.training.global_batch"))->value(), 256);
    QVERIFY(second->document()->isDirty());

    // A clean save removes the autosave; reopening offers nothing.
    QVERIFY(second->saveWorkspace(path));
    QVERIFY(!QFile::exists(autosavePath));
    auto third = openWindow(path);
    QVERIFY(third);
    QVERIFY(!third->restoreBanner()->isVisible());
}

void TstMainWindow::screenshots()
{
    auto window = openWindow();
    QVERIFY(window);
    widgets::ResultsPanel* results = window->resultsPanel();
    QTRY_VERIFY_WITH_TIMEOUT(!results->summaryLabel()->text().isEmpty(), 5000);
    QCOMPARE(results->placementTable()->rowCount(), 4);

    // Text must really render: fonts are installed and resolve, and a label's text has a width.
    QVERIFY(!QFontDatabase::families().isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(results->evaluation().has_value() && results->evaluation()->training, 10000);
    QLabel* note = results->summaryFigures()->captionLabel(0); // "Step time"
    QVERIFY(note->isVisible());
    const QFontMetrics metrics(note->font());
    QVERIFY(metrics.horizontalAdvance(note->text()) > 0);
    QVERIFY(metrics.inFont(QLatin1Char('S')));
    QVERIFY(!QFontInfo(note->font()).family().isEmpty());

    QCOMPARE(window->size(), QSize(1400, 900));
    saveScreenshot(*window, QStringLiteral("workbench-forms.png"));

    // The YAML view with a problem: the offending line and the diagnostic are visible.
    typeIntoSpinBox(spinBox(*window, QStringLiteral("run.parallelism.tp")), QStringLiteral("3"));
    window->mainTabs()->setCurrentWidget(window->yamlEditor());
    window->yamlEditor()->setCurrentWidget(window->yamlEditor()->editor(DocumentKind::Run));
    saveScreenshot(*window, QStringLiteral("workbench-yaml.png"));

    // The same view under a dark palette, to check it by eye (build directory only).
    const QPalette original = QApplication::palette();
    QApplication::setPalette(test::darkPalette());
    window->mainTabs()->setCurrentIndex(0);
    QCoreApplication::processEvents();
    const QPixmap shot = window->grab();
    QApplication::setPalette(original);
    QVERIFY(shot.save(QStringLiteral(RAPID_SCREENSHOT_DIR "/workbench-forms-dark.png")));
}

QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
