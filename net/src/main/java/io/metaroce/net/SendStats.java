package io.metaroce.net;

/**
 * What a device's send sockets handed the kernel: {@code sendmmsg} calls, messages (one per datagram, or one per
 * UDP GSO run), datagrams, and the GSO messages with the datagrams (segments) they carried. Written by the agent
 * thread only; read on the agent thread (snapshots in {@link DeviceStats}).
 */
final class SendStats {
    /** sendmmsg (or per-datagram send) calls. */
    long sendCalls;
    /** Messages the kernel accepted: plain datagrams plus GSO runs. */
    long messages;
    /** Datagrams the kernel accepted (a GSO run counts each of its segments). */
    long datagrams;
    /** Messages that carried a GSO run of two or more datagrams. */
    long gsoMessages;
    /** Datagrams carried inside GSO runs. */
    long gsoSegments;

    /** Datagrams per sendmmsg call (0 before the first call). */
    double datagramsPerCall() {
        return sendCalls == 0 ? 0 : (double) datagrams / sendCalls;
    }

    /** Datagrams per GSO message (0 when no GSO message was sent). */
    double segmentsPerGsoMessage() {
        return gsoMessages == 0 ? 0 : (double) gsoSegments / gsoMessages;
    }
}
