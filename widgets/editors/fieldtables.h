// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/documentkind.h"
#include "editors/fieldspec.h"

#include <QList>

namespace rapid::widgets {

class WorkspaceDocument;

/// The fields of one document's form. The hardware form has one group per network dimension, so its table depends
/// on the document's current text.
QList<FieldSpec> fieldsFor(DocumentKind kind, const WorkspaceDocument& document);

} // namespace rapid::widgets
