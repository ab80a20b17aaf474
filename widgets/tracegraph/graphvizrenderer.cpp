// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphvizrenderer.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>

namespace rapid::widgets {

namespace {

std::mutex& graphvizMutex()
{
    static std::mutex mutex;
    return mutex;
}

/// Created on first use and never freed: a worker may still be inside Graphviz while the process exits, and the
/// plugin context costs nothing to keep.
GVC_t* sharedContext()
{
    static GVC_t* const context = gvContext();
    return context;
}

/// Graphviz reports problems through one global callback, in fragments ("Error", ": ", "syntax error in line 1 near
/// ';'"); they are collected here while the mutex is held instead of going to stderr.
std::string& collectedMessages()
{
    static std::string text;
    return text;
}

int collectMessage(char* message)
{
    collectedMessages() += message;
    return 0;
}

/// Installs collectMessage() for the lifetime of one render and restores the previous handler afterwards.
class MessageCapture {
public:
    MessageCapture()
        : m_previous(agseterrf(&collectMessage))
    {
        collectedMessages().clear();
        agreseterrors();
    }
    ~MessageCapture() { agseterrf(m_previous); }
    MessageCapture(const MessageCapture&) = delete;
    MessageCapture& operator=(const MessageCapture&) = delete;

    static QString text(const char* fallback)
    {
        const QString collected = QString::fromUtf8(collectedMessages()).simplified();
        return collected.isEmpty() ? QString::fromUtf8(fallback) : collected;
    }

private:
    agusererrf m_previous;
};

void setError(QString* error, const QString& text)
{
    if (error) {
        *error = text;
    }
}

} // namespace

QByteArray renderDotToSvg(const std::string& dot, QString* error)
{
    const std::lock_guard lock(graphvizMutex());
    GVC_t* context = sharedContext();
    if (!context) {
        setError(error, QStringLiteral("Graphviz could not be initialised"));
        return {};
    }
    const MessageCapture capture;
    Agraph_t* graph = agmemread(dot.c_str());
    if (!graph) {
        setError(error, MessageCapture::text("Graphviz could not parse the graph"));
        return {};
    }
    QByteArray svg;
    if (gvLayout(context, graph, "dot") != 0) {
        setError(error, MessageCapture::text("Graphviz could not lay out the graph"));
        agclose(graph);
        return {};
    }
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(context, graph, "svg", &data, &length) == 0 && data) {
        svg = QByteArray(data, static_cast<qsizetype>(length));
    } else {
        setError(error, MessageCapture::text("Graphviz could not render the graph as SVG"));
    }
    if (data) {
        gvFreeRenderData(data);
    }
    gvFreeLayout(context, graph);
    agclose(graph);
    return svg;
}

} // namespace rapid::widgets
