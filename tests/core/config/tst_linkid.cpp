// SPDX-License-Identifier: GPL-3.0-or-later
// Link ids compared as written, without a cluster (the workbench matches a clicked link against the faults in the
// YAML): the same link whichever end comes first and whether copy 0 is written or not (configs/README.md: the copy
// is optional and 0 by default).
#include "config/linkid.h"

#include <QTest>

using rapid::config::sameLinkId;

class TstLinkId : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameLinkWhicheverWayWritten();
};

void TstLinkId::sameLinkWhicheverWayWritten()
{
    QVERIFY(sameLinkId("nvlink@2:3-s1.0", "nvlink@2:s1.0-3"));
    QVERIFY(sameLinkId("nvlink:0-1", "nvlink@0:1-0"));
    QVERIFY(sameLinkId("ib@02:5-s1.0", "ib@2:5-s1.0"));
    QVERIFY(!sameLinkId("nvlink@1:0-1", "nvlink:0-1")); // another copy of the dimension
    QVERIFY(!sameLinkId("nvlink:0-1", "nvlink:0-2"));
    QVERIFY(!sameLinkId("nvlink:0-1", "ib:0-1"));
    QVERIFY(!sameLinkId("ib:s1.0-s2.0", "ib:s1.0-s2.1"));
    // Text that is no link id compares as text.
    QVERIFY(sameLinkId("not a link", "not a link"));
    QVERIFY(!sameLinkId("nvlink@x:0-1", "nvlink:0-1"));
}

QTEST_GUILESS_MAIN(TstLinkId)
#include "tst_linkid.moc"
