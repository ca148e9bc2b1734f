package io.metaroce.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The in-flight record table grows with the path's flight and keeps every record where {@code slot} finds it. */
class PathRecordsTest {
    /** Records a send at the path's next PSN as the transmit scheduler does, with fields derived from the PSN. */
    private static void send(Path p) {
        p.ensureRecords();
        int i = p.slot(p.nextPsn);
        p.recState[i] = Path.INFLIGHT;
        p.recSerial[i] = 1000L + p.nextPsn;
        p.recSeg[i] = p.nextPsn * 3;
        p.recSentNs[i] = 7L * p.nextPsn;
        p.nextPsn++;
    }

    private static void assertRecordsIntact(Path p) {
        for (int psn = p.floor; psn != p.nextPsn; psn++) {
            int i = p.slot(psn);
            assertEquals(Path.INFLIGHT, p.recState[i], "state of PSN " + psn);
            assertEquals(1000L + psn, p.recSerial[i], "serial of PSN " + psn);
            assertEquals(psn * 3, p.recSeg[i], "segment of PSN " + psn);
            assertEquals(7L * psn, p.recSentNs[i], "send time of PSN " + psn);
        }
    }

    @Test
    void aPathThatOnlyReceivesHasNoRecords() {
        assertEquals(0, new Path(0, 0).recordCapacity());
    }

    @Test
    void theTableStartsSmallAndDoublesWithTheFlight() {
        Path p = new Path(0, 0);
        p.nextPsn = p.floor = -5; // PSNs wrap: the table must not care
        send(p);
        assertEquals(Path.MIN_RECORDS, p.recordCapacity());
        while (p.nextPsn - p.floor < Path.MIN_RECORDS) {
            send(p);
        }
        assertEquals(Path.MIN_RECORDS, p.recordCapacity());
        send(p);
        assertEquals(2 * Path.MIN_RECORDS, p.recordCapacity());
        assertRecordsIntact(p);
        while (p.nextPsn - p.floor < Path.WINDOW) {
            send(p);
        }
        assertEquals(Path.WINDOW, p.recordCapacity());
        assertRecordsIntact(p);
    }

    @Test
    void aSlidingFlightThatFitsNeverGrows() {
        Path p = new Path(0, 0);
        p.nextPsn = p.floor = 100;
        for (int k = 0; k < 10_000; k++) {
            send(p);
            if (p.nextPsn - p.floor == Path.MIN_RECORDS) {
                p.recState[p.slot(p.floor)] = Path.FREE;
                p.floor++; // acknowledged: the floor moves
            }
        }
        assertEquals(Path.MIN_RECORDS, p.recordCapacity());
        assertRecordsIntact(p);
    }

    @Test
    void theTableNeverGrowsBeyondTheWindow() {
        // the real datapath can reach a full window (perf send-lat -a did): the table then stays at WINDOW slots
        Path p = new Path(0, 0);
        while (p.nextPsn - p.floor < Path.WINDOW) {
            send(p);
        }
        p.ensureRecords();
        assertEquals(Path.WINDOW, p.recordCapacity());
    }
}
