package io.metaroce.core;

/**
 * PATH-14: a QP's earliest deadline whose work can only become a transmission (a delayed ACK falling due, ACK-2), in
 * the engine's heap of such deadlines (a grant's next slot is its peer's {@link GrantClock}, in the pacing heap). The engine reports it no earlier than the line
 * rate lets the next datagram leave: waking for it while the line is busy would only wake the QP again when it is free.
 */
final class SendDue extends Timed {
    final QueuePair qp;

    SendDue(QueuePair qp) {
        this.qp = qp;
    }
}
