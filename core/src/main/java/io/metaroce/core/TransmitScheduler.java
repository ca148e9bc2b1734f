package io.metaroce.core;

import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;

/**
 * Chooses one QP's next datagram: control packets first (NAKs, probe replies, ACKs, parities, probes), then data:
 * retransmissions before new segments (REL-4), alternating between the application's queue and READ responses,
 * sprayed over the sendable path with the largest open window (PATH-1, {@link PathChooser}), within each path's window
 * and pacing (CC-5) and the receiver's grant (HINT-3). Records each data packet in its path's in-flight records.
 */
final class TransmitScheduler {
    private final QpCore c;
    private final PacketWriter writer;
    private final PathProber prober;
    private final ParitySender paritySender;
    private final PathChooser chooser;
    private int ackCursor;
    private boolean preferResponses;
    /**
     * The path of the data packet the last {@link #poll} sent when that packet (its record, the path's floor, its
     * pacing) was all the poll changed; null otherwise ({@link QpTimers#nextDeadlineAfterData}).
     */
    Path dataPath;

    TransmitScheduler(QpCore c, PacketWriter writer, PathProber prober) {
        this.c = c;
        this.chooser = new PathChooser(c);
        this.writer = writer;
        this.paritySender = new ParitySender(c, writer);
        this.prober = prober;
    }

    /**
     * Writes the next datagram of this QP into {@code out}; returns its length, or 0 when nothing may be sent
     * now.
     */
    int poll(long nowNs, MemorySegment out, Transmit tx) {
        dataPath = null;
        if (!c.running()) {
            return 0;
        }
        if (!c.naks.isEmpty()) {
            return writer.nak(nowNs, out, tx);
        }
        if (!c.replies.isEmpty()) {
            return writer.probeReply(nowNs, out, tx);
        }
        if (c.ackWork) {
            Path p = ackDue(nowNs);
            if (p != null) {
                ackCursor = p.id + 1 == c.paths.length ? 0 : p.id + 1;
                return writer.ack(nowNs, p, out, tx);
            }
        }
        if (!c.parityOwed.isEmpty() && c.state == QpState.RTS) {
            int len = paritySender.next(nowNs, out, tx);
            if (len > 0) {
                pace(nowNs, paritySender.sentOn(), len);
                return len;
            }
        }
        Path probe = prober.nextProbe(nowNs);
        if (probe != null) {
            // RTO-12: into a route that reports CE marks the probe is a PROBE: its newest segment is queued, not lost
            int len = c.cfg.tailCopy && probe.state == PathState.ACTIVE && probe.tlpCheck && c.state == QpState.RTS
                    && !probe.route().markedRecently(nowNs) ? tailCopy(nowNs, probe, out, tx) : 0;
            if (len > 0) {
                return len;
            }
            if (probe.state == PathState.ACTIVE) {
                c.count(Counter.TAIL_PROBES);
            }
            return writer.probe(nowNs, probe, out, tx);
        }
        if (c.state != QpState.RTS) {
            return 0;
        }
        return pollData(nowNs, out, tx);
    }

    /**
     * The path, from the ACK cursor on, with an ACK to send at {@code atNs} (ACK-2); null when none, and the QP's ACK
     * work is then done (a delayed ACK falling due later sets it again).
     */
    private Path ackDue(long atNs) {
        Path[] paths = c.paths;
        int n = paths.length;
        for (int k = 0; k < n; k++) {
            int id = ackCursor + k;
            Path p = paths[id >= n ? id - n : id];
            if (p != null && (p.ackNow || (p.rxPending > 0 && p.ackDeadlineNs - atNs <= 0))) {
                return p;
            }
        }
        c.ackWork = false;
        return null;
    }

    private int pollData(long nowNs, MemorySegment out, Transmit tx) {
        GrantClock grant = c.peerLoad.grant;
        if (grant.waits(nowNs)) {
            awaitGrant(grant);
            return 0;
        }
        // Choose what to send: retransmissions first (REL-4), then new segments, alternating between the
        // application's queue and READ responses.
        RetransmitQueue retx = c.retx;
        int q;
        SendWqe w;
        int seg;
        int attempt;
        boolean retransmit;
        boolean copy = false;
        while (true) {
            if (!retx.isEmpty()) {
                q = retx.headQueue();
                w = c.queue(q).live(retx.headSerial());
                seg = retx.headSeg();
                if (w == null || w.done || SendWqe.bit(w.acked, seg)) {
                    retx.pop();
                    continue;
                }
                copy = retx.headIsCopy();
                attempt = retx.headAttempt() + 1;
                retransmit = true;
                break;
            }
            // HINT-7: the send queue's new data waits for an ACK once an unscheduled QP spent its budget
            OutQueue sq = grant.unscheduledSpent(nowNs, c.cfg.unscheduledBytes, c.cfg.activeSenderWindowNs)
                    ? null : c.sq;
            OutQueue first = preferResponses || sq == null ? c.rsq : sq;
            OutQueue second = first == c.rsq ? sq : c.rsq;
            OutQueue oq = first.hasNew() ? first : second != null && second.hasNew() ? second : null;
            if (oq == null) {
                if (sq == null && c.sq.hasNew()) {
                    awaitRoom(); // the ACK that schedules it releases a packet of its budget
                }
                return 0;
            }
            w = oq.at(oq.nextToSend);
            q = oq == c.sq ? QpCore.Q_SEND : QpCore.Q_RESP;
            seg = w.nextSeg;
            attempt = 0;
            retransmit = false;
            break;
        }
        Path p = chooser.choose(nowNs);
        if (p == null) {
            awaitRoomOrSlot();
            return 0;
        }
        if (retransmit) {
            retx.pop();
            if (attempt > c.cfg.retryLimit) {
                c.failRequest(w, WcStatus.RETRY_EXC_ERR);
                return 0;
            }
        } else {
            OutQueue oq = c.queue(q);
            if (++w.nextSeg >= w.segments) {
                oq.nextToSend++;
                preferResponses = !preferResponses;
            }
        }
        c.advanceFloor(p, nowNs); // the packet carries the current floor (REL-5), past lost records no longer held
        int len = writer.data(nowNs, p, w, seg, retransmit, out);
        record(nowNs, p, q, w, seg, attempt, len);
        p.lastTxAckReq = retransmit || seg == w.segments - 1; // what PacketWriter flags ACK_REQ
        if (!retransmit && c.cfg.parityTailSegments > 0) {
            paritySender.owe(q, w, seg, p, nowNs);
        }
        if (retransmit && !copy && c.cfg.resendCopies > 1 && !c.hasNewData()) {
            copyResend(q, w, seg, attempt);
        }
        if (copy) {
            c.count(Counter.RESEND_COPIES);
        }
        if (retransmit) {
            p.retransmits++;
            c.count(Counter.RETRANSMITS);
        }
        c.count(Counter.TX_DATA_PACKETS);
        c.add(Counter.TX_PAYLOAD_BYTES, w.segmentBytes(seg, c.cfg.mtu));
        pace(nowNs, p, len);
        dataPath = p;
        return writer.finish(out, len - Packet.CRC_LENGTH, p, w.op, tx);
    }

    /**
     * REL-22: with nothing new to send, a resend is followed by copies (queued behind the resends already waiting, so
     * each normally takes another path), as many as the peer's loss rate calls for. A copy is the same attempt: it is
     * not a retry (REL-8).
     */
    private void copyResend(int q, SendWqe w, int seg, int attempt) {
        int copies = ResendCopies.forLoss(c.peerLoad.lossRate.rate(), c.cfg.resendCopies);
        for (int k = 1; k < copies; k++) {
            c.retx.pushCopy(q, w.serial, seg, attempt - 1);
        }
    }

    /**
     * RTO-6: a tail-loss probe carries the path's newest unacknowledged segment again, at the path's next PSN (a
     * tail copy): if that packet was lost, the copy completes its message one round trip after the probe instead of
     * two, and its ACK settles the path's tail as a PROBE's would (RTO-8). It is not a retry (REL-8); it goes only
     * within the window. Returns 0 when the path has no such segment or no room (a PROBE goes instead).
     */
    private int tailCopy(long nowNs, Path p, MemorySegment out, Transmit tx) {
        if (!chooser.mayTake(p.id)) {
            return 0;
        }
        for (int psn = p.nextPsn - 1; psn - p.floor >= 0; psn--) {
            int i = p.slot(psn);
            if (p.recState[i] != Path.INFLIGHT) {
                continue;
            }
            int q = p.recQueue[i];
            SendWqe w = c.queue(q).live(p.recSerial[i]);
            int seg = p.recSeg[i];
            if (w == null || w.done || SendWqe.bit(w.acked, seg)) {
                continue;
            }
            int attempt = p.recAttempt[i];
            c.advanceFloor(p, nowNs);
            int len = writer.data(nowNs, p, w, seg, true, out);
            record(nowNs, p, q, w, seg, attempt, len);
            p.lastTxAckReq = true;
            c.count(Counter.TAIL_COPIES);
            c.count(Counter.TX_DATA_PACKETS);
            c.add(Counter.TX_PAYLOAD_BYTES, w.segmentBytes(seg, c.cfg.mtu));
            return writer.finish(out, len - Packet.CRC_LENGTH, p, w.op, tx);
        }
        return 0;
    }

    /**
     * HINT-3: the receiver's grant paces every QP to the peer together and holds this one's data back. The grant's slot
     * wakes it only with a route that has room, so it waits on the peer too: a route that is full now is woken when a
     * packet leaves flight (PATH-15).
     */
    private void awaitGrant(GrantClock grant) {
        awaitRoom();
        SharedPath route = chooser.earliestRoute();
        if (route != null && route.nextSendNs() - grant.nextNs >= 0) {
            route.pacingQueue().await(c.face); // PATH-18: the route's slot, not the grant, is the later
        } else if (route != null) {
            grant.await(c.face); // the grant's slot wakes one waiting QP of the peer at a time
        }
    }

    /**
     * No path may take data now. With a route that has room but not its pacing slot or this QP's turn yet
     * ({@link PathChooser#pacedRoute()}, set by the scan that found none), the QP waits for that route's slot only,
     * which wakes one waiter at a time (PATH-18); it is not also woken when room opens, since a route with room was not
     * what it lacked (at 4,000 QPs such wake-ups were 12 polls that sent nothing per datagram sent). With no route with
     * room, it waits for room to its peer (PATH-15).
     */
    private void awaitRoomOrSlot() {
        SharedPath pacedRoute = chooser.pacedRoute();
        if (pacedRoute != null) {
            pacedRoute.pacingQueue().await(c.face);
        } else {
            awaitRoom();
        }
    }

    /** PATH-15: data waits; the QP is woken when any packet to its peer leaves flight (pacing: {@link PacingQueue}). */
    private void awaitRoom() {
        c.peerLoad.await(c.face);
    }

    /** Records the packet just written at {@code p}'s next PSN in the path's in-flight records. */
    private void record(long nowNs, Path p, int q, SendWqe w, int seg, int attempt, int len) {
        p.ensureRecords();
        int i = p.slot(p.nextPsn);
        p.recState[i] = Path.INFLIGHT;
        p.recQueue[i] = (byte) q;
        p.recSerial[i] = w.serial;
        p.recSeg[i] = seg;
        p.recBytes[i] = len;
        p.recAttempt[i] = attempt;
        p.recSentNs[i] = nowNs;
        if (p.inflightPackets == 0 && p.rackStreak == 0) {
            // (a path emptied by REL-14 losses without progress keeps its RTO clock: that is how it fails)
            p.lastProgressNs = nowNs;
        }
        p.nextPsn++;
        p.addInflight(len); // (after nextPsn: it refreshes the path's bit in the path choice's mask)
        p.txPackets++;
        p.txBytes += len;
    }

    /** Pacing: per route at pacingGain * cwnd / srtt (CC-5), per peer at the receiver's grant (HINT-3). */
    private void pace(long nowNs, Path p, int len) {
        c.face.pacedOn = null; // it sent: a place it held in a route's pacing queue is stale (CC-5)
        SharedPath route = p.route();
        double cwnd = route.cwndBytes;
        if (c.cfg.pacingGain > 0 && route.srttNs > 0) {
            // CC-10: a window below one packet is a rate: cwnd per srtt, without the pacing gain
            double gain = cwnd < c.cfg.mtu ? 1.0 : c.cfg.pacingGain;
            double bytesPerNs = gain * cwnd / route.srttNs;
            // the clock may lag now by the burst credit: an idle route saves up at most one burst (CC-5)
            long credit = (long) (c.cfg.pacingBurstBytes / bytesPerNs);
            route.nextSendNs(Math.max(route.nextSendNs(), nowNs - credit) + (long) (len / bytesPerNs));
            route.paced();
        }
        p.peer.grant.sent(c.face, len, nowNs); // HINT-3, HINT-7
        if (c.face.pacingToken != null) {
            c.face.pacingToken.handBack(c.face); // PATH-18: its turn is used, the next waiter's comes
        }
    }

    /**
     * PATH-14: whether a poll at {@code atNs} (when the line is next free) could send anything. When it certainly
     * could not, the QP is left waiting as that poll would leave it: for room to its peer and its route's next
     * pacing slot (PATH-15, PATH-18), with a slot's token it holds handed on, so it needs no poll meanwhile (nor the
     * driver a wake-up that sends nothing); a grant whose next slot is later than {@code atNs} is waited for as a poll
     * would (HINT-3). Errs towards true (HINT-7 budgets, a retransmission that may be stale).
     */
    boolean canSendBy(long atNs) {
        if (sendsBy(atNs)) {
            return true;
        }
        if (c.face.pacingToken != null) {
            c.face.pacingToken.handBack(c.face); // PATH-18: its turn on the route passes to the next waiter
        }
        return false;
    }

    private boolean sendsBy(long atNs) {
        if (!c.running()) {
            return false;
        }
        if (!c.naks.isEmpty() || !c.replies.isEmpty() || c.ackWork && ackDue(atNs) != null || prober.hasWork()
                || !c.parityOwed.isEmpty() && c.state == QpState.RTS) {
            return true;
        }
        if (c.state != QpState.RTS || !c.hasDataToSend()) {
            return false;
        }
        if (c.cfg.unscheduledBytes > 0 || !c.retx.isEmpty()) {
            return true;
        }
        GrantClock grant = c.peerLoad.grant;
        if (grant.waits(atNs)) {
            awaitGrant(grant); // as a poll at atNs would wait (HINT-3)
            return false;
        }
        if (chooser.anyDue(atNs)) {
            return true;
        }
        awaitRoomOrSlot();
        return false;
    }


}
