package io.metaroce.net.cm;

import io.metaroce.core.Engine;
import io.metaroce.core.QueuePair;
import io.metaroce.core.wire.CmMessage;

/** One connection (attempt) of a {@link CmEndpoint}, identified by (remote, connection id) (CM-3). */
final class CmConnection {
    /** Map key: the peer and the initiator's connection id. */
    record Key(long remote, long cid) {
    }

    final Key key;
    final boolean initiator;
    CmState state;
    QueuePair qp;
    int localPsn;
    int peerQpn;
    /** Responder: the REQ decided on and the answer (REP or REJ) repeated for duplicates (CM-5). */
    CmMessage req;
    CmMessage answer;
    /** What is retransmitted on the timer (our CM_REQ or CM_DREQ), when, the current timeout and retries so far. */
    CmMessage retransmit;
    long retryAtNs = Engine.NO_DEADLINE;
    long backoffNs;
    int retries;
    /** Initiator: the attempt's deadline ({@link Engine#NO_DEADLINE} for none). */
    long deadlineNs = Engine.NO_DEADLINE;
    /** Initiator with a key: answers to this attempt dropped for lacking a valid seal (AUTH-14's report). */
    int unauthenticatedAnswers;
    /** TIME_WAIT / REJECTED (and REP_SENT with a key, AUTH-15): when the attempt is forgotten. */
    long forgetAtNs = Engine.NO_DEADLINE;

    CmConnection(Key key, boolean initiator, CmState state) {
        this.key = key;
        this.initiator = initiator;
        this.state = state;
    }

    /** The earliest time this connection has something to do. */
    long deadline() {
        long d = retryAtNs;
        if (forgetAtNs != Engine.NO_DEADLINE && (d == Engine.NO_DEADLINE || forgetAtNs - d < 0)) {
            d = forgetAtNs;
        }
        if (deadlineNs != Engine.NO_DEADLINE && (d == Engine.NO_DEADLINE || deadlineNs - d < 0)) {
            d = deadlineNs;
        }
        return d;
    }

    /** Arms the retransmission of {@code m} with the first timeout {@code firstNs} from {@code nowNs}. */
    void arm(CmMessage m, long nowNs, long firstNs) {
        retransmit = m;
        retries = 0;
        backoffNs = firstNs;
        retryAtNs = nowNs + firstNs;
    }

    void disarm() {
        retransmit = null;
        retryAtNs = Engine.NO_DEADLINE;
        deadlineNs = Engine.NO_DEADLINE;
    }
}
