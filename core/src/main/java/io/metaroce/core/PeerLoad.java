package io.metaroce.core;

import java.util.ArrayList;

/**
 * PATH-15: an engine's routes to one peer ({@link SharedPath}, one per path id), shared by every QP to that peer,
 * and the QPs waiting for room in their windows.
 */
final class PeerLoad {
    private final Engine engine;
    private final SharedPath[] paths;
    /** QPs whose data waits for room in a shared window: woken when any packet to this peer leaves flight. */
    private final ArrayList<QueuePair> waiters = new ArrayList<>();

    PeerLoad(Engine engine, EngineConfig cfg) {
        this.engine = engine;
        this.paths = new SharedPath[cfg.paths];
        for (int i = 0; i < paths.length; i++) {
            paths[i] = new SharedPath(i, cfg);
        }
    }

    SharedPath path(int id) {
        return paths[id];
    }

    /** {@code qp} has data but no path with room: wake it when room opens. */
    void await(QueuePair qp) {
        if (!qp.awaitingPeer) {
            qp.awaitingPeer = true;
            waiters.add(qp);
        }
    }

    /** A packet left flight: every waiting QP may now find room (each registers again if it does not). */
    void released() {
        if (waiters.isEmpty()) {
            return;
        }
        for (int i = 0; i < waiters.size(); i++) {
            QueuePair qp = waiters.get(i);
            qp.awaitingPeer = false;
            engine.markReady(qp);
        }
        waiters.clear();
    }
}
