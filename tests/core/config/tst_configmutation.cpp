// SPDX-License-Identifier: GPL-3.0-or-later
// Mutation test: thousands of randomly corrupted presets. The loader must either accept the input or reject it with
// located diagnostics; it must never crash, hang or throw anything but ConfigError. Run it under the dev-asan
// preset to turn memory errors into failures too. The random generator is seeded, so a failure is reproducible.
#include "config/workspacefile.h"
#include "testutils.h"

#include <QFile>
#include <QTest>

#include <random>

using namespace rapid;

namespace {

std::string mutate(std::string text, std::mt19937& random)
{
    static const std::string kSpecial = ":-[]{}\"'#&*!|>%@,?\t\n 0123456789aZ.=~";
    auto position = [&](size_t size) {
        return size == 0 ? size_t(0) : std::uniform_int_distribution<size_t>(0, size - 1)(random);
    };
    const int operations = std::uniform_int_distribution<int>(1, 4)(random);
    for (int i = 0; i < operations && !text.empty(); ++i) {
        switch (std::uniform_int_distribution<int>(0, 7)(random)) {
        case 0: // replace a byte by a YAML-significant character
            text[position(text.size())] = kSpecial[position(kSpecial.size())];
            break;
        case 1: { // delete a span
            const size_t at = position(text.size());
            text.erase(at, std::uniform_int_distribution<size_t>(1, 40)(random));
            break;
        }
        case 2: // insert an arbitrary byte (NUL and invalid UTF-8 included)
            text.insert(text.begin() + static_cast<long>(position(text.size())),
                static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random)));
            break;
        case 3: // truncate
            text.resize(position(text.size()));
            break;
        case 4: { // duplicate a line
            const size_t at = text.rfind('\n', position(text.size()));
            const size_t start = at == std::string::npos ? 0 : at + 1;
            const size_t end = text.find('\n', start);
            const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
            text.insert(start, line);
            break;
        }
        case 5: { // change the indentation of a line
            const size_t at = text.rfind('\n', position(text.size()));
            text.insert(at == std::string::npos ? 0 : at + 1,
                std::string(std::uniform_int_distribution<size_t>(1, 3)(random), ' '));
            break;
        }
        case 6: { // replace a number by an extreme one
            const size_t digit = text.find_first_of("0123456789", position(text.size()));
            if (digit != std::string::npos) {
                static const char* const kExtremes[]
                    = { "-1", "0", "1e308", "99999999999999999999", "nan", "-0.0", ".inf" };
                text.replace(digit, 1, kExtremes[position(7)]);
            }
            break;
        }
        default: { // swap two lines' positions
            const size_t a = text.find('\n', position(text.size()));
            const size_t b = text.find('\n', position(text.size()));
            if (a != std::string::npos && b != std::string::npos && a != b) {
                std::swap(text[a], text[std::min(b, text.size() - 1)]);
            }
            break;
        }
        }
    }
    return text;
}

std::string readFile(const std::string& path)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return file.readAll().toStdString();
}

} // namespace

class TstConfigMutation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void corruptedInputNeverCrashes_data();
    void corruptedInputNeverCrashes();
};

void TstConfigMutation::corruptedInputNeverCrashes_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("mutations");
    QTest::addRow("workspace_llama70b_64xh100")
        << "llama-3.1-70b-64xh100" << int(config::PresetKind::Workspace) << 2500;
    QTest::addRow("gpu_h100") << "h100-sxm5-80gb" << int(config::PresetKind::Gpu) << 800;
    QTest::addRow("model_deepseek_v3") << "deepseek-v3" << int(config::PresetKind::Model) << 800;
    QTest::addRow("hardware_torus") << "torus2d-4x4" << int(config::PresetKind::Hardware) << 800;
}

void TstConfigMutation::corruptedInputNeverCrashes()
{
    QFETCH(QString, preset);
    QFETCH(int, kind);
    QFETCH(int, mutations);
    const config::PresetLibrary library = test::projectPresets();
    const config::ConfigLoader loader(library);
    const config::PresetKind presetKind = config::PresetKind(kind);
    std::string original;
    if (presetKind == config::PresetKind::Workspace) {
        original = config::composeWorkspace(config::readWorkspaceDocuments(preset.toStdString(), library));
    } else {
        original = readFile(library.resolve(presetKind, preset.toStdString()).value_or(""));
    }
    QVERIFY(!original.empty());
    QTemporaryDir dir;
    std::mt19937 random(20261122u + static_cast<unsigned>(kind));
    int accepted = 0;
    int rejected = 0;
    for (int i = 0; i < mutations; ++i) {
        const std::string corrupted = mutate(original, random);
        const std::string path = test::writeFile(dir, "mutant.rapid.yaml", corrupted);
        try {
            switch (presetKind) {
            case config::PresetKind::Workspace:
                loader.loadWorkspace(path);
                break;
            case config::PresetKind::Model:
                loader.loadModel(path);
                break;
            default:
                loader.loadHardware(path);
                break;
            }
            ++accepted;
        } catch (const config::ConfigError& error) {
            ++rejected;
            QVERIFY(!error.diagnostics().empty());
            for (const config::Diagnostic& diagnostic : error.diagnostics()) {
                if (diagnostic.message.empty() || diagnostic.location.source.empty()
                    || diagnostic.message.rfind("internal error", 0) == 0) {
                    QFAIL(("bad diagnostic \"" + diagnostic.toString() + "\" for mutant " + std::to_string(i) + ":\n"
                        + corrupted)
                              .c_str());
                }
            }
        } catch (const std::exception& error) {
            QFAIL(("mutant " + std::to_string(i) + " threw " + error.what() + ":\n" + corrupted).c_str());
        }
    }
    qInfo("%d mutants: %d accepted, %d rejected with located errors", mutations, accepted, rejected);
    QVERIFY(rejected > mutations / 4); // the mutations really do break most inputs
}

QTEST_GUILESS_MAIN(TstConfigMutation)
#include "tst_configmutation.moc"
