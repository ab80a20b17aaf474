// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/figuredialog.h"

#include "common/chartexporter.h"
#include "common/chartwidget.h"
#include "common/figurestylepresets.h"

#include "config/diagnostic.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace rapid::widgets {

namespace {

constexpr double kSingleColumnInches = 3.5;
constexpr double kDoubleColumnInches = 7.0;
constexpr int kCustomWidth = 2; // index of "Custom" in the width combo
// The preview shows the figure at its paper size (96 layout pixels per inch) up to this width, smaller beyond.
constexpr int kPreviewWidthPx = 520;
constexpr int kPreviewDelayMs = 60;
const QString kFormatKey = QStringLiteral("figureExport/format");
const QString kFolderKey = QStringLiteral("figureExport/folder");

/// A number typed in either the user's locale or with a dot; nullopt for text that is neither.
std::optional<double> parseNumber(const QString& text)
{
    bool ok = false;
    double value = QLocale().toDouble(text.trimmed(), &ok);
    if (!ok) {
        value = QLocale::c().toDouble(text.trimmed(), &ok);
    }
    return ok && std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

QString numberText(const std::optional<double>& value)
{
    return value ? QLocale::c().toString(*value, 'g', 12) : QString();
}

/// Whether a file can be written into @p folder: it is a writable folder, or the nearest folder above it that exists
/// is writable (so that it can be created).
bool canHold(const QString& folder)
{
    QFileInfo info(folder);
    while (!info.exists()) {
        const QString parent = info.absolutePath();
        if (parent == info.absoluteFilePath()) {
            return false; // the root does not exist: nothing to create into
        }
        info = QFileInfo(parent);
    }
    return info.isDir() && info.isWritable();
}

} // namespace

FigureDialog::FigureDialog(
    const QList<Target>& targets, int selected, const config::FigureStyle& style, QWidget* parent)
    : QDialog(parent)
    , m_targets(targets)
    , m_target(new QComboBox(this))
    , m_preset(new QComboBox(this))
    , m_width(new QComboBox(this))
    , m_customWidth(new QDoubleSpinBox(this))
    , m_height(new QDoubleSpinBox(this))
    , m_font(new QFontComboBox(this))
    , m_fontSize(new QDoubleSpinBox(this))
    , m_title(new QCheckBox(tr("Title and verdict lines on the figure"), this))
    , m_legend(new QComboBox(this))
    , m_palette(new QComboBox(this))
    , m_series(new QTableWidget(0, 2, this))
    , m_valueMin(new QLineEdit(this))
    , m_valueMax(new QLineEdit(this))
    , m_valueLabel(new QLineEdit(this))
    , m_format(new QComboBox(this))
    , m_dpi(new QSpinBox(this))
    , m_path(new QLineEdit(this))
    , m_keep(new QCheckBox(tr("Keep this style with the workspace"), this))
    , m_previewLabel(new QLabel(this))
    , m_problemLabel(new QLabel(this))
    , m_folderNote(new QLabel(this))
    , m_previewDelay(new QTimer(this))
{
    setObjectName(QStringLiteral("figureDialog"));
    setWindowTitle(tr("Export figure"));
    for (const Target& target : targets) {
        m_target->addItem(target.name);
    }
    m_target->setCurrentIndex(qBound(0, selected, static_cast<int>(targets.size()) - 1));
    m_previewLabel->setObjectName(QStringLiteral("figurePreview"));
    m_previewLabel->setAlignment(Qt::AlignCenter);
    m_previewLabel->setMinimumSize(360, 280);
    m_previewLabel->setFrameShape(QFrame::StyledPanel);
    m_problemLabel->setObjectName(QStringLiteral("figureProblem"));
    m_problemLabel->setWordWrap(true);
    QPalette red = m_problemLabel->palette();
    red.setColor(QPalette::WindowText, QColor(0xD5, 0x5E, 0x00));
    m_problemLabel->setPalette(red);

    auto* fields = new QVBoxLayout;
    fields->addWidget(createStyleFields());
    fields->addWidget(createOutputFields());
    auto* top = new QHBoxLayout;
    top->addLayout(fields);
    top->addWidget(m_previewLabel, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    m_save = buttons->button(QDialogButtonBox::Save);
    QPushButton* saveStyle = buttons->addButton(tr("Save Style As…"), QDialogButtonBox::ActionRole);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top, 1);
    layout->addWidget(m_problemLabel);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(saveStyle, &QPushButton::clicked, this, &FigureDialog::saveStyleFile);

    const QSettings settings;
    const QString suffix = settings.value(kFormatKey, QStringLiteral("pdf")).toString();
    for (int index = 0; index < m_format->count(); ++index) {
        if (suffixOf(static_cast<ExportFormat>(m_format->itemData(index).toInt())) == suffix) {
            m_format->setCurrentIndex(index);
        }
    }
    QString folder = settings.value(kFolderKey).toString();
    if (folder.isEmpty() || !QFileInfo(folder).isDir()) {
        folder = defaultFolder();
        const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
        if (QDir(folder) != QDir(pictures)) {
            m_fallbackNote = tr("The Pictures folder %1 cannot be created: figures go to %2.")
                                 .arg(QDir::toNativeSeparators(pictures), QDir::toNativeSeparators(folder));
        }
    }
    const QWidget* chosen = selectedWidget();
    const QString base = chosen && !chosen->objectName().isEmpty() ? chosen->objectName() : QStringLiteral("figure");
    m_path->setText(QDir(folder).filePath(base + QLatin1Char('.') + suffix));
    fillSeriesTable();
    setStyle(style);
    connectFields();
    formatChanged();
    validate();
}

QWidget* FigureDialog::createStyleFields()
{
    m_preset->addItem(tr("(as below)"));
    for (const QString& name : FigureStylePresets::names()) {
        m_preset->addItem(name, name);
    }
    m_width->addItem(tr("Single column (%1 in)").arg(kSingleColumnInches), kSingleColumnInches);
    m_width->addItem(tr("Double column (%1 in)").arg(kDoubleColumnInches), kDoubleColumnInches);
    m_width->addItem(tr("Custom"));
    m_customWidth->setRange(config::kMinFigureInches, config::kMaxFigureInches);
    m_customWidth->setDecimals(2);
    m_customWidth->setSuffix(tr(" in"));
    m_height->setRange(0, config::kMaxFigureInches);
    m_height->setDecimals(2);
    m_height->setSingleStep(0.25);
    m_height->setSuffix(tr(" in"));
    m_height->setSpecialValueText(tr("auto (from the width)"));
    m_height->setToolTip(tr("0 or \"auto\": 3:4 of a column-wide figure, 0.45 of the width across a page"));
    m_fontSize->setRange(config::kMinFontPt, config::kMaxFontPt);
    m_fontSize->setDecimals(1);
    m_fontSize->setSuffix(tr(" pt"));
    m_legend->addItem(tr("Above the plot"), static_cast<int>(config::LegendPlacement::Top));
    m_legend->addItem(tr("Below the plot"), static_cast<int>(config::LegendPlacement::Bottom));
    m_legend->addItem(tr("Right of the plot"), static_cast<int>(config::LegendPlacement::Right));
    m_legend->addItem(tr("None"), static_cast<int>(config::LegendPlacement::Off));
    m_palette->addItem(tr("Okabe-Ito (colour-blind safe)"), static_cast<int>(config::FigurePalette::OkabeIto));
    m_palette->addItem(tr("Tol bright (colour-blind safe)"), static_cast<int>(config::FigurePalette::TolBright));
    m_palette->addItem(tr("Tol muted (colour-blind safe)"), static_cast<int>(config::FigurePalette::TolMuted));
    m_series->setObjectName(QStringLiteral("figureSeries"));
    m_series->setHorizontalHeaderLabels({ tr("Series"), tr("Shown as") });
    m_series->horizontalHeader()->setStretchLastSection(true);
    m_series->verticalHeader()->hide();
    m_series->setMinimumHeight(110);
    m_valueMin->setPlaceholderText(tr("from the data"));
    m_valueMax->setPlaceholderText(tr("from the data"));
    m_valueLabel->setPlaceholderText(tr("the chart's own"));

    auto* widthRow = new QHBoxLayout;
    widthRow->addWidget(m_width, 1);
    widthRow->addWidget(m_customWidth);
    auto* fontRow = new QHBoxLayout;
    fontRow->addWidget(m_font, 1);
    fontRow->addWidget(m_fontSize);
    auto* rangeRow = new QHBoxLayout;
    rangeRow->addWidget(m_valueMin);
    rangeRow->addWidget(new QLabel(tr("to"), this));
    rangeRow->addWidget(m_valueMax);
    auto* box = new QGroupBox(tr("Figure"), this);
    auto* form = new QFormLayout(box);
    form->addRow(tr("Chart"), m_target);
    form->addRow(tr("Style preset"), m_preset);
    form->addRow(tr("Width"), widthRow);
    form->addRow(tr("Height"), m_height);
    form->addRow(tr("Font"), fontRow);
    form->addRow(QString(), m_title);
    form->addRow(tr("Legend"), m_legend);
    form->addRow(tr("Colours"), m_palette);
    form->addRow(tr("Value axis"), rangeRow);
    form->addRow(tr("Axis title"), m_valueLabel);
    form->addRow(tr("Series names"), m_series);
    return box;
}

QWidget* FigureDialog::createOutputFields()
{
    m_format->addItem(tr("PDF document"), static_cast<int>(ExportFormat::Pdf));
    m_format->addItem(tr("SVG vector graphics"), static_cast<int>(ExportFormat::Svg));
    m_format->addItem(tr("PNG image"), static_cast<int>(ExportFormat::Png));
    m_dpi->setRange(config::kMinFigureDpi, config::kMaxFigureDpi);
    m_dpi->setSuffix(tr(" dpi"));
    m_path->setObjectName(QStringLiteral("exportPath"));
    auto* browseButton = new QPushButton(tr("Browse…"), this);
    connect(browseButton, &QPushButton::clicked, this, &FigureDialog::browse);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browseButton);
    auto* box = new QGroupBox(tr("File"), this);
    auto* form = new QFormLayout(box);
    form->addRow(tr("Format"), m_format);
    form->addRow(tr("Resolution"), m_dpi);
    form->addRow(tr("File"), pathRow);
    m_folderNote->setObjectName(QStringLiteral("exportFolderNote"));
    m_folderNote->setWordWrap(true);
    m_folderNote->hide();
    form->addRow(QString(), m_folderNote);
    form->addRow(QString(), m_keep);
    return box;
}

void FigureDialog::connectFields()
{
    m_previewDelay->setSingleShot(true);
    m_previewDelay->setInterval(kPreviewDelayMs);
    connect(m_previewDelay, &QTimer::timeout, this, &FigureDialog::updatePreview);
    const auto changed = [this] {
        if (!m_filling) {
            validate();
            schedulePreview();
        }
    };
    connect(m_target, &QComboBox::currentIndexChanged, this, [this, changed] {
        const config::FigureStyle current = style();
        fillSeriesTable();
        setStyle(current);
        changed();
    });
    connect(m_preset, &QComboBox::activated, this, [this](int index) {
        const QString name = m_preset->itemData(index).toString();
        if (const std::optional<config::FigureStyle> preset = FigureStylePresets::preset(name)) {
            setStyle(*preset);
        }
    });
    connect(m_width, &QComboBox::currentIndexChanged, this, [this, changed] {
        m_customWidth->setEnabled(m_width->currentIndex() == kCustomWidth);
        changed();
    });
    for (QDoubleSpinBox* spin : { m_customWidth, m_height, m_fontSize }) {
        connect(spin, &QDoubleSpinBox::valueChanged, this, changed);
    }
    connect(m_font, &QFontComboBox::currentFontChanged, this, changed);
    connect(m_title, &QCheckBox::toggled, this, changed);
    connect(m_legend, &QComboBox::currentIndexChanged, this, changed);
    connect(m_palette, &QComboBox::currentIndexChanged, this, changed);
    connect(m_series, &QTableWidget::itemChanged, this, changed);
    for (QLineEdit* edit : { m_valueMin, m_valueMax, m_valueLabel, m_path }) {
        connect(edit, &QLineEdit::textChanged, this, changed);
    }
    connect(m_dpi, &QSpinBox::valueChanged, this, changed);
    connect(m_format, &QComboBox::currentIndexChanged, this, [this, changed] {
        formatChanged();
        changed();
    });
}

QWidget* FigureDialog::selectedWidget() const
{
    const int index = m_target->currentIndex();
    return index >= 0 && index < m_targets.size() ? m_targets[index].widget.data() : nullptr;
}

void FigureDialog::fillSeriesTable()
{
    const bool filling = m_filling;
    m_filling = true;
    m_series->setRowCount(0);
    const auto* chart = qobject_cast<const ChartWidget*>(selectedWidget());
    const QStringList names = chart ? chart->seriesNames() : QStringList();
    for (const QString& name : names) {
        const int row = m_series->rowCount();
        m_series->insertRow(row);
        auto* original = new QTableWidgetItem(name);
        original->setFlags(original->flags() & ~Qt::ItemIsEditable);
        m_series->setItem(row, 0, original);
        m_series->setItem(row, 1, new QTableWidgetItem(name));
    }
    m_series->setEnabled(!names.isEmpty());
    m_filling = filling;
}

void FigureDialog::setStyle(const config::FigureStyle& style)
{
    m_filling = true;
    const int widthIndex = style.widthInches == kSingleColumnInches ? 0
        : style.widthInches == kDoubleColumnInches                  ? 1
                                                                    : kCustomWidth;
    m_width->setCurrentIndex(widthIndex);
    m_customWidth->setValue(style.widthInches);
    m_customWidth->setEnabled(widthIndex == kCustomWidth);
    m_height->setValue(style.heightInches);
    m_font->setCurrentFont(QFont(QString::fromStdString(style.fontFamily)));
    m_fontSize->setValue(style.fontSizePt);
    m_title->setChecked(style.title);
    m_legend->setCurrentIndex(m_legend->findData(static_cast<int>(style.legend)));
    m_palette->setCurrentIndex(m_palette->findData(static_cast<int>(style.palette)));
    for (int row = 0; row < m_series->rowCount(); ++row) {
        const std::string original = m_series->item(row, 0)->text().toStdString();
        m_series->item(row, 1)->setText(QString::fromStdString(style.displayName(original)));
    }
    m_valueMin->setText(numberText(style.valueMin));
    m_valueMax->setText(numberText(style.valueMax));
    m_valueLabel->setText(QString::fromStdString(style.valueLabel));
    m_dpi->setValue(style.dpi);
    m_filling = false;
    validate();
    schedulePreview();
}

config::FigureStyle FigureDialog::style() const
{
    config::FigureStyle style;
    style.widthInches
        = m_width->currentIndex() == kCustomWidth ? m_customWidth->value() : m_width->currentData().toDouble();
    style.heightInches = m_height->value();
    style.dpi = m_dpi->value();
    style.fontFamily = m_font->currentFont().family().toStdString();
    style.fontSizePt = m_fontSize->value();
    style.title = m_title->isChecked();
    style.legend = static_cast<config::LegendPlacement>(m_legend->currentData().toInt());
    style.palette = static_cast<config::FigurePalette>(m_palette->currentData().toInt());
    for (int row = 0; row < m_series->rowCount(); ++row) {
        const QString original = m_series->item(row, 0)->text();
        const QString shown = m_series->item(row, 1)->text().trimmed();
        if (!shown.isEmpty() && shown != original) {
            style.seriesNames.push_back({ original.toStdString(), shown.toStdString() });
        }
    }
    style.valueMin = parseNumber(m_valueMin->text());
    style.valueMax = parseNumber(m_valueMax->text());
    style.valueLabel = m_valueLabel->text().trimmed().toStdString();
    return style;
}

ExportOptions FigureDialog::options() const
{
    return { static_cast<ExportFormat>(m_format->currentData().toInt()), style() };
}

void FigureDialog::validate()
{
    QString problem;
    const double height = m_height->value();
    const auto badNumber
        = [](const QLineEdit* edit) { return !edit->text().trimmed().isEmpty() && !parseNumber(edit->text()); };
    if (height > 0 && height < config::kMinFigureInches) {
        problem = tr("The height is %1 in: give at least %2 in, or 0 for a height from the width.")
                      .arg(height)
                      .arg(config::kMinFigureInches);
    } else if (badNumber(m_valueMin) || badNumber(m_valueMax)) {
        problem = tr("The value axis range takes numbers (empty: from the data).");
    } else if (const config::FigureStyle current = style();
               current.valueMin && current.valueMax && !(*current.valueMin < *current.valueMax)) {
        problem = tr("The value axis must end above where it starts.");
    } else if (m_path->text().trimmed().isEmpty()) {
        problem = tr("Choose the file to write.");
    } else if (const QString folder = QFileInfo(m_path->text()).absolutePath(); !canHold(folder)) {
        problem = tr("The folder %1 does not exist and cannot be created: choose another.")
                      .arg(QDir::toNativeSeparators(folder));
    } else if (!selectedWidget()) {
        problem = tr("There is no chart to export.");
    }
    updateFolderNote();
    m_problemText = problem;
    m_problemLabel->setText(problem);
    m_problemLabel->setVisible(!problem.isEmpty());
    if (m_save) {
        m_save->setEnabled(problem.isEmpty());
    }
}

void FigureDialog::schedulePreview()
{
    m_previewDelay->start();
}

void FigureDialog::updatePreview()
{
    if (!m_problemText.isEmpty() && m_problemText != tr("Choose the file to write.")) {
        return; // the last good preview stays, the problem line says why it does not follow
    }
    const ExportOptions current = options();
    const double ratio = devicePixelRatioF();
    const double dpi = std::min(96.0, kPreviewWidthPx / current.figure.widthInches) * ratio;
    QString error;
    QImage image = ChartExporter::renderImage(selectedWidget(), current, dpi, &error);
    if (image.isNull()) {
        m_previewLabel->setText(error);
        return;
    }
    m_preview = image;
    image.setDevicePixelRatio(ratio);
    m_previewLabel->setPixmap(QPixmap::fromImage(image));
    Q_EMIT previewUpdated();
}

QString FigureDialog::filePath() const
{
    return m_path->text();
}

void FigureDialog::setFilePath(const QString& path)
{
    m_path->setText(path);
}

bool FigureDialog::keepWithWorkspace() const
{
    return m_keep->isChecked();
}

void FigureDialog::rememberChoices() const
{
    QSettings settings;
    settings.setValue(kFormatKey, suffixOf(options().format));
    settings.setValue(kFolderKey, QFileInfo(m_path->text()).absolutePath());
}

bool FigureDialog::makeFolder(QString* created, QString* error) const
{
    created->clear();
    const QString folder = QFileInfo(m_path->text()).absolutePath();
    if (QFileInfo(folder).isDir()) {
        return true;
    }
    if (!QDir().mkpath(folder)) {
        *error = tr("Cannot create the folder %1").arg(QDir::toNativeSeparators(folder));
        return false;
    }
    *created = folder;
    return true;
}

QString FigureDialog::defaultFolder()
{
    const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    if (!pictures.isEmpty() && canHold(pictures)) {
        return pictures;
    }
    const QFileInfo home(QDir::homePath());
    return home.isDir() && home.isWritable() ? home.absoluteFilePath() : QDir::tempPath();
}

void FigureDialog::updateFolderNote()
{
    const QString folder = QFileInfo(m_path->text()).absolutePath();
    QString note = m_fallbackNote;
    if (!m_path->text().trimmed().isEmpty() && !QFileInfo(folder).isDir() && canHold(folder)) {
        note = tr("The folder %1 does not exist yet: Save creates it.").arg(QDir::toNativeSeparators(folder));
    }
    m_folderNote->setText(note);
    m_folderNote->setVisible(!note.isEmpty());
}

void FigureDialog::browse()
{
    const QString suffix = suffixOf(options().format);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export figure"), m_path->text(), tr("%1 files (*.%2)").arg(suffix.toUpper(), suffix));
    if (!path.isEmpty()) {
        m_path->setText(path);
    }
}

void FigureDialog::saveStyleFile()
{
    const QString folder = QFileInfo(m_path->text()).absolutePath();
    const QString path = QFileDialog::getSaveFileName(this, tr("Save figure style"),
        QDir(folder).filePath(QStringLiteral("figure-style.yaml")), tr("Figure styles (*.yaml)"));
    if (path.isEmpty()) {
        return;
    }
    QFile file(path);
    const std::string text = "# A RAPID-LLM Workbench figure style: rapid plot --style "
        + QFileInfo(path).fileName().toStdString() + "\n" + config::composeFigureStyle(style());
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) {
        QMessageBox::warning(this, tr("Save figure style"), tr("Cannot write %1").arg(path));
    }
}

void FigureDialog::formatChanged()
{
    const ExportFormat format = static_cast<ExportFormat>(m_format->currentData().toInt());
    m_dpi->setEnabled(format == ExportFormat::Png); // vector formats have no pixels
    // Keep the file name in step with the format, so Save writes what the combo says.
    const QFileInfo info(m_path->text());
    if (!m_path->text().isEmpty()) {
        m_path->setText(info.dir().filePath(info.completeBaseName() + QLatin1Char('.') + suffixOf(format)));
    }
}

} // namespace rapid::widgets
