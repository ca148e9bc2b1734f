package io.metaroce.cli.perf;

import io.metaroce.core.QpState;
import io.metaroce.net.Device;
import io.metaroce.net.DeviceQp;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The end of a perf run: closes every connection the peer has not closed, in order (CM_DREQ, CM-10) and all at
 * once, so that thousands of QPs cost one wait, not one each (closed one by one, 1,000 QPs whose peer was gone
 * took 1.65 s each, 27 minutes; see {@code bench/teardown.sh}).
 */
final class Teardown {
    /** How long a side waits for the answers to its CM_DREQs, ms (the CM gives up after about 1.3-1.7 s of retries). */
    static final long DISCONNECT_WAIT_MS = 3_000;
    /** QPs named one by one when their peer does not answer the CM_DREQ; the rest are counted. */
    static final int WARNED_QPS = 5;

    private Teardown() {
    }

    /** Closes the open connections of {@code eps} on {@code device}; warns on {@code err} about unanswered ones. */
    static void closeOpen(Device device, List<Endpoint> eps, PrintWriter err, String test) {
        List<DeviceQp> open = new ArrayList<>();
        for (Endpoint ep : eps) {
            if (ep.qp.state() != QpState.ERROR) { // ERROR: the peer closed it already
                open.add(ep.qp);
            }
        }
        if (open.isEmpty()) {
            return;
        }
        List<DeviceQp> unanswered = device.disconnectAll(open, DISCONNECT_WAIT_MS);
        for (int i = 0; i < unanswered.size() && i < WARNED_QPS; i++) {
            err.println("perf " + test + ": warning: QP " + Session.hex(unanswered.get(i).qpn()) + ": the peer did not "
                    + "answer the CM_DREQ");
        }
        if (unanswered.size() > WARNED_QPS) {
            err.println("perf " + test + ": warning: and " + (unanswered.size() - WARNED_QPS) + " more QPs of "
                    + open.size() + " whose peer did not answer the CM_DREQ");
        }
        err.flush();
    }
}
