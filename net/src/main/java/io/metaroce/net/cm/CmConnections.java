package io.metaroce.net.cm;

import io.metaroce.core.Engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A {@link CmEndpoint}'s table: its connections and remembered attempts by (remote, connection id) and by local QP
 * number, the responders still waiting for an RTU (CM-8), and the earliest deadline among them (recomputed only
 * after something changed, {@link #changed()}).
 */
final class CmConnections {
    private final Map<CmConnection.Key, CmConnection> byKey = new HashMap<>();
    private final Map<Integer, CmConnection> byQpn = new HashMap<>();
    /** Responders in REP_SENT: checked for an implicit RTU (CM-8) until they are established. */
    private final List<CmConnection> awaitingRtu = new ArrayList<>();
    private long nextDeadlineNs = Engine.NO_DEADLINE;
    private boolean dirty;

    /** The connection or attempt {@code cid} with {@code remote}, or null. */
    CmConnection get(long remote, long cid) {
        return byKey.get(new CmConnection.Key(remote, cid));
    }

    boolean contains(CmConnection.Key key) {
        return byKey.containsKey(key);
    }

    /** The connection of local QP {@code qpn}, or null. */
    CmConnection ofQp(int qpn) {
        return byQpn.get(qpn);
    }

    void put(CmConnection c) {
        byKey.put(c.key, c);
        if (c.qp != null) {
            byQpn.put(c.qp.qpn(), c);
        }
        dirty = true;
    }

    /** Forgets {@code c}: its timers are disarmed and it leaves every index. */
    void remove(CmConnection c) {
        c.disarm();
        c.forgetAtNs = Engine.NO_DEADLINE;
        byKey.remove(c.key);
        if (c.qp != null && byQpn.get(c.qp.qpn()) == c) {
            byQpn.remove(c.qp.qpn());
        }
        awaitingRtu.remove(c);
        dirty = true;
    }

    /** Forgets everything, disarming every timer. */
    void clear() {
        for (Iterator<CmConnection> it = byKey.values().iterator(); it.hasNext(); ) {
            it.next().disarm();
            it.remove();
        }
        byQpn.clear();
        awaitingRtu.clear();
        dirty = true;
    }

    int size() {
        return byKey.size();
    }

    /** A copy of every entry, for a pass that may remove some. */
    List<CmConnection> snapshot() {
        return List.copyOf(byKey.values());
    }

    /** A timer or state of some entry changed: the next {@link #nextDeadline} looks again. */
    void changed() {
        dirty = true;
    }

    /** The earliest deadline of any entry, or {@link Engine#NO_DEADLINE}. */
    long nextDeadline() {
        if (dirty) {
            long d = Engine.NO_DEADLINE;
            for (CmConnection c : byKey.values()) {
                long x = c.deadline();
                if (x != Engine.NO_DEADLINE && (d == Engine.NO_DEADLINE || x - d < 0)) {
                    d = x;
                }
            }
            nextDeadlineNs = d;
            dirty = false;
        }
        return nextDeadlineNs;
    }

    void awaitRtu(CmConnection c) {
        awaitingRtu.add(c);
    }

    void rtuDone(CmConnection c) {
        awaitingRtu.remove(c);
    }

    /** The responders waiting for an RTU (the caller may end waits while it walks this backwards). */
    List<CmConnection> awaitingRtu() {
        return awaitingRtu;
    }
}
