// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/exportdialog.h"

#include "common/plotstyle.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>

namespace rapid::widgets {

ExportDialog::ExportDialog(const QList<Target>& targets, int selected, QWidget* parent)
    : QDialog(parent)
    , m_targets(targets)
    , m_target(new QComboBox(this))
    , m_format(new QComboBox(this))
    , m_width(new QComboBox(this))
    , m_height(new QDoubleSpinBox(this))
    , m_dpi(new QSpinBox(this))
    , m_path(new QLineEdit(this))
{
    setObjectName(QStringLiteral("exportDialog"));
    setWindowTitle(tr("Export chart"));
    for (const Target& target : targets) {
        m_target->addItem(target.name);
    }
    m_target->setCurrentIndex(qBound(0, selected, static_cast<int>(targets.size()) - 1));
    m_format->addItem(tr("PNG image"), static_cast<int>(ExportFormat::Png));
    m_format->addItem(tr("SVG vector graphics"), static_cast<int>(ExportFormat::Svg));
    m_format->addItem(tr("PDF document"), static_cast<int>(ExportFormat::Pdf));
    const PlotStyle& style = PlotStyle::standard();
    m_width->addItem(tr("Single column (%1 in)").arg(style.singleColumnInches()), style.singleColumnInches());
    m_width->addItem(tr("Double column (%1 in)").arg(style.doubleColumnInches()), style.doubleColumnInches());
    m_height->setRange(0.5, 12);
    m_height->setDecimals(2);
    m_height->setSingleStep(0.25);
    m_height->setSuffix(tr(" in"));
    m_dpi->setRange(72, 1200);
    m_dpi->setValue(300);
    m_dpi->setSuffix(tr(" dpi"));
    m_path->setObjectName(QStringLiteral("exportPath"));
    auto* browseButton = new QPushButton(tr("Browse…"), this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browseButton);

    auto* form = new QFormLayout;
    form->addRow(tr("Chart"), m_target);
    form->addRow(tr("Format"), m_format);
    form->addRow(tr("Width"), m_width);
    form->addRow(tr("Height"), m_height);
    form->addRow(tr("Resolution"), m_dpi);
    form->addRow(tr("File"), pathRow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browseButton, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::formatChanged);
    connect(m_width, &QComboBox::currentIndexChanged, this, &ExportDialog::widthChanged);
    connect(m_path, &QLineEdit::textChanged, this,
        [buttons](const QString& text) { buttons->button(QDialogButtonBox::Save)->setEnabled(!text.isEmpty()); });
    const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    m_path->setText(QDir(pictures).filePath(QStringLiteral("chart.png")));
    widthChanged();
    formatChanged();
}

QWidget* ExportDialog::selectedWidget() const
{
    const int index = m_target->currentIndex();
    return index >= 0 && index < m_targets.size() ? m_targets[index].widget.data() : nullptr;
}

ExportOptions ExportDialog::options() const
{
    ExportOptions options;
    options.format = static_cast<ExportFormat>(m_format->currentData().toInt());
    options.widthInches = m_width->currentData().toDouble();
    options.heightInches = m_height->value();
    options.dpi = m_dpi->value();
    return options;
}

QString ExportDialog::filePath() const
{
    return m_path->text();
}

void ExportDialog::setFilePath(const QString& path)
{
    m_path->setText(path);
}

void ExportDialog::browse()
{
    const QString suffix = suffixOf(options().format);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export chart"), m_path->text(), tr("%1 files (*.%2)").arg(suffix.toUpper(), suffix));
    if (!path.isEmpty()) {
        m_path->setText(path);
    }
}

void ExportDialog::formatChanged()
{
    const ExportFormat format = options().format;
    m_dpi->setEnabled(format == ExportFormat::Png); // vector formats have no pixels
    // Keep the file name in step with the format, so Save writes what the combo says.
    const QFileInfo info(m_path->text());
    if (!m_path->text().isEmpty()) {
        m_path->setText(info.dir().filePath(info.completeBaseName() + QLatin1Char('.') + suffixOf(format)));
    }
}

void ExportDialog::widthChanged()
{
    ExportOptions defaults;
    defaults.widthInches = m_width->currentData().toDouble();
    m_height->setValue(defaults.height());
}

} // namespace rapid::widgets
