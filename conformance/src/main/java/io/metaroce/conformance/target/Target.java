package io.metaroce.conformance.target;

import io.metaroce.conformance.script.Script;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An implementation under test (IUT) as the runner drives it: one device with one QP whose peer is the
 * tester. Times are nanoseconds since the case began: virtual time in process, the wall clock remotely.
 * Implementations: {@link InProcessTarget} (our engine, virtual time) and {@link RemoteTarget} (an agent
 * speaking docs/conformance/AGENT-PROTOCOL.md over UDP).
 */
public interface Target extends AutoCloseable {
    /** Capability: times of emitted packets are exact (virtual time). */
    String EXACT_TIME = "exact-time";
    /** Capability: per-path statistics ({@code check path}). */
    String PATH_STATS = "path-stats";
    /** Capability: named counters ({@code check counter}). */
    String COUNTERS = "counters";
    /** Capability: the tester can send from a second address, which the IUT's driver must drop (BAD-12). */
    String SOURCE_FILTER = "source-filter";
    /** Capability: the IUT learns the IP ECN field of each datagram the tester sends ({@code ecn=CE}). */
    String ECN_MARKS = "ecn-marks";
    /** Capability: {@code repeat=N} datagrams reach the IUT as one burst, handled before it transmits. */
    String BURST = "burst";
    /** Capability: the tester can deliver a datagram as trimmed by a switch ({@code trimmed=1}, REL-17). */
    String TRIMMING = "trimming";
    /** Capability: the IUT runs a connection manager the tester can talk to (CM-*). */
    String CM = "cm";

    /** A short description for reports ("in-process engine", "agent 10.0.0.2:4800"). */
    String description();

    /** What this target can do beyond the basics ({@link #EXACT_TIME}, {@link #PATH_STATS}, ...). */
    Set<String> capabilities();

    /** Resets the IUT and sets it up for {@code script}: configuration, regions, QP state. */
    Setup setup(Script script) throws TargetException;

    /** Lets time pass up to {@code tNs} (firing the IUT's timers on the way). */
    void advanceTo(long tNs) throws TargetException;

    /** The current time of the case, ns. */
    long now();

    /** Delivers one datagram from the tester to the IUT now, with IP ECN field {@code ecn}. */
    void inject(byte[] datagram, int length, int ecn) throws TargetException;

    /**
     * Delivers the same datagram {@code count} times back to back (a burst: an in-process target handles them
     * all before it lets the engine transmit).
     */
    default void injectBurst(byte[] datagram, int length, int ecn, int count) throws TargetException {
        for (int i = 0; i < count; i++) {
            inject(datagram, length, ecn);
        }
    }

    /**
     * Delivers what is left of a datagram a switch trimmed to its headers, as trimmed (REL-17); needs
     * {@link #TRIMMING}.
     */
    default void injectTrimmed(byte[] datagram, int length) throws TargetException {
        throw new TargetException("this target cannot deliver trimmed packets");
    }

    /**
     * Delivers a datagram from an address that is not the tester's (BAD-12); needs {@link #SOURCE_FILTER}.
     */
    default void injectFromStranger(byte[] datagram, int length) throws TargetException {
        throw new TargetException("this target cannot send from a second address");
    }

    /** Datagrams the IUT emitted since the last call, oldest first. */
    List<Captured> takeCaptured() throws TargetException;

    /** Posts a send work request ({@code op}: write, writeimm, send, sendimm, read); returns the post result. */
    int post(String op, long wrId, String mr, long offset, int length, long remoteVa, int rkey, int imm,
             boolean signaled) throws TargetException;

    /** Posts a receive; returns the post result (0, EINVAL 22, ENOMEM 12). */
    int postRecv(long wrId, String mr, long offset, int length) throws TargetException;

    /** Moves the QP to {@code state}; returns "OK" or "refused". */
    String modify(String state) throws TargetException;

    /** Deregisters region {@code mr}. */
    void deregister(String mr) throws TargetException;

    /** Writes {@code data} into region {@code mr} at {@code offset} (the application filling a buffer). */
    void writeMemory(String mr, long offset, byte[] data) throws TargetException;

    /** Reads {@code length} bytes of region {@code mr} at {@code offset}. */
    byte[] readMemory(String mr, long offset, int length) throws TargetException;

    /** The next completion of the send ({@code send} true) or receive CQ, or null when it is empty. */
    Completion poll(boolean send) throws TargetException;

    /** The QP's state name (RESET, INIT, RTR, RTS, ERROR). */
    String qpState() throws TargetException;

    /** The IUT's named counters (engine-wide). */
    Map<String, Long> counters() throws TargetException;

    /** Statistics of one path (state, cwnd, inflight, srtt, rto, timeouts, ...); needs {@link #PATH_STATS}. */
    Map<String, String> pathStats(int path) throws TargetException;

    /** Internal errors the IUT caught (a correct engine has 0), or -1 if unknown. */
    long internalErrors() throws TargetException;

    @Override
    void close();

    /**
     * What set-up produced.
     *
     * @param qpn     the IUT's QP number
     * @param regions the registered regions by name
     */
    record Setup(int qpn, Map<String, Region> regions) {
    }

    /**
     * One registered region.
     *
     * @param va   its address as peers name it
     * @param rkey its remote key
     * @param size its length
     */
    record Region(long va, int rkey, int size) {
    }

    /**
     * One work completion.
     *
     * @param wrId      work request id
     * @param status    status name (SUCCESS, WR_FLUSH_ERR, ...)
     * @param opcode    opcode name (RDMA_WRITE, RECV, ...)
     * @param byteLen   byte length
     * @param imm       immediate data
     * @param hasImm    whether an immediate is present
     * @param qpn       the QP number
     */
    record Completion(long wrId, String status, String opcode, int byteLen, int imm, boolean hasImm, int qpn) {
    }

    /**
     * One datagram the IUT emitted.
     *
     * @param timeNs  when it was emitted (in process) or received by the tester (remote), ns since case start
     * @param bytes   the datagram
     * @param plane   the plane it was sent on, or -1 if unknown
     * @param ecn     the IP ECN field it was sent with, or -1 if unknown
     */
    record Captured(long timeNs, byte[] bytes, int plane, int ecn) {
    }

    /** No common names for the failures of a target; hence one checked exception with a message. */
    final class TargetException extends Exception {
        private static final long serialVersionUID = 1L;

        /** A failure described by {@code message}. */
        public TargetException(String message) {
            super(message);
        }

        /** A failure caused by {@code cause}. */
        public TargetException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
