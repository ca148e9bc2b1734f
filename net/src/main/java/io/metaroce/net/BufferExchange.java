package io.metaroce.net;

import io.metaroce.core.Access;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.util.concurrent.locks.LockSupport;

/**
 * Swaps {@link BufferInfo}s with the peer of a QP, one SEND each way over the connection itself (no side
 * channel): the simplest way for two programs to learn each other's buffer before they WRITE or READ.
 *
 * <p>The receive must be posted before the peer's SEND arrives, so the two sides take turns:
 * <ol>
 *   <li>client: {@link #prepare} before {@link Device#connect}, then {@link #receiveThenSend} once connected;</li>
 *   <li>server: {@link #prepare} right after {@link Device#accept}, then {@link #sendThenReceive}.</li>
 * </ol>
 * The client sends only after it has received the server's message, by which time the server's receive is
 * posted. Both calls poll the QP's completion queues and expect no other work to complete meanwhile: call
 * them before posting anything else on the QP. The work request ids used are {@link #RECV_WR_ID} and
 * {@link #SEND_WR_ID}. Not thread-safe: one exchange per QP, from the thread that polls its CQs.
 */
public final class BufferExchange {
    /** Work request id of the exchange's receive. */
    public static final long RECV_WR_ID = 0xB0FF_E100_0000_0001L;
    /** Work request id of the exchange's SEND. */
    public static final long SEND_WR_ID = 0xB0FF_E100_0000_0002L;

    private static final long SEND_OFFSET = BufferInfo.BYTES;

    private final DeviceQp qp;
    private final MemoryRegion scratch;
    private final WorkCompletion wc = new WorkCompletion();
    private boolean received;
    private boolean sent;
    private BufferInfo peer;

    private BufferExchange(DeviceQp qp, MemoryRegion scratch) {
        this.qp = qp;
        this.scratch = scratch;
    }

    /**
     * Registers a {@code 2 x }{@value BufferInfo#BYTES}-byte message buffer in {@code pd} and posts the receive
     * for the peer's message on {@code qp}.
     *
     * @param device the device {@code qp} belongs to
     * @param pd     the protection domain of {@code qp}
     * @param qp     a QP in INIT (before connecting) or connected
     * @return the exchange, ready for {@link #sendThenReceive} or {@link #receiveThenSend}
     * @throws IOException if the device refuses the receive
     */
    public static BufferExchange prepare(Device device, ProtectionDomain pd, DeviceQp qp) throws IOException {
        MemoryRegion mr = device.registerMemory(pd, Arena.ofAuto().allocate(2L * BufferInfo.BYTES, 8),
                Access.LOCAL_WRITE);
        int rc = qp.postRecv(RECV_WR_ID, mr, 0, BufferInfo.BYTES);
        if (rc != QueuePair.OK) {
            throw new IOException("cannot post the receive for the peer's buffer message: error " + rc);
        }
        return new BufferExchange(qp, mr);
    }

    /**
     * Server side: SENDs {@code mine}, then waits for the peer's message.
     *
     * @param mine      this side's buffer
     * @param timeoutMs how long to wait for both completions, in milliseconds
     * @return the peer's buffer
     * @throws IOException on an error completion, a refused post or a timeout
     */
    public BufferInfo sendThenReceive(BufferInfo mine, long timeoutMs) throws IOException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        send(mine);
        awaitUntil(deadline, true);
        return peer;
    }

    /**
     * Client side: waits for the peer's message, then SENDs {@code mine}.
     *
     * @param mine      this side's buffer
     * @param timeoutMs how long to wait for both completions, in milliseconds
     * @return the peer's buffer
     * @throws IOException on an error completion, a refused post or a timeout
     */
    public BufferInfo receiveThenSend(BufferInfo mine, long timeoutMs) throws IOException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        awaitUntil(deadline, false);
        send(mine);
        awaitUntil(deadline, true);
        return peer;
    }

    private void send(BufferInfo mine) throws IOException {
        mine.encode(scratch.segment(), SEND_OFFSET);
        int rc = qp.postSend(SEND_WR_ID, scratch, SEND_OFFSET, BufferInfo.BYTES, QueuePair.SIGNALED);
        if (rc != QueuePair.OK) {
            throw new IOException("cannot post the buffer message: error " + rc);
        }
    }

    /** Polls until the peer's message is in and, if {@code needSent}, this side's SEND has completed. */
    private void awaitUntil(long deadline, boolean needSent) throws IOException {
        while (!received || needSent && !sent) {
            if (!pollOne(qp.recvCq()) && (qp.sendCq() == qp.recvCq() || !pollOne(qp.sendCq()))) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("no buffer message exchange with the peer within the timeout (QP "
                            + qp.qpn() + " " + qp.state() + ")");
                }
                LockSupport.parkNanos(10_000);
            }
        }
    }

    private boolean pollOne(DeviceCq cq) throws IOException {
        if (!cq.poll(wc)) {
            return false;
        }
        if (wc.status() != WcStatus.SUCCESS) {
            throw new IOException("buffer message exchange failed: " + wc.status() + " on work request 0x"
                    + Long.toHexString(wc.wrId()));
        }
        if (wc.wrId() == RECV_WR_ID) {
            if (wc.byteLen() != BufferInfo.BYTES) {
                throw new IOException("the peer's buffer message has " + wc.byteLen() + " bytes, not "
                        + BufferInfo.BYTES);
            }
            try {
                peer = BufferInfo.decode(scratch.segment(), 0);
            } catch (IllegalArgumentException e) {
                throw new IOException("the peer's buffer message is malformed: " + e.getMessage(), e);
            }
            received = true;
        } else if (wc.wrId() == SEND_WR_ID) {
            sent = true;
        } else {
            throw new IOException("unexpected completion of work request 0x" + Long.toHexString(wc.wrId())
                    + " during the buffer message exchange");
        }
        return true;
    }
}
