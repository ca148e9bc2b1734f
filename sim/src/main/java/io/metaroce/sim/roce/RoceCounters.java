package io.metaroce.sim.roce;

import java.util.LinkedHashMap;
import java.util.Map;

/** The counters of the RoCEv2 baseline ({@link RoceTransport}), summed over every host. */
final class RoceCounters {
    long dataPacketsSent;
    long retransmits;
    long timeouts;
    long naksSent;
    long naksReceived;
    long cnpsSent;
    long cnpsReceived;
    long acksSent;
    long outOfSequenceDrops;
    long duplicates;
    long ceReceived;
    long qpErrors;
    long internalErrors;
    long crossDiscarded;
    long trimmedDrops;

    /**
     * The counters by their metric names, with the DCQCN rate {@code decreases} and {@code increases} summed over
     * the QPs and, on a trimming fabric, the trimmed packets dropped.
     */
    Map<String, Long> toMap(long decreases, long increases, boolean trimming) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("retransmits", retransmits);
        m.put("timeouts", timeouts);
        m.put("path_failovers", 0L);
        m.put("naks", naksReceived);
        m.put("naks_sent", naksSent);
        m.put("cnps", cnpsReceived);
        m.put("cnps_sent", cnpsSent);
        m.put("rate_decreases", decreases);
        m.put("rate_increases", increases);
        m.put("acks_sent", acksSent);
        m.put("ce_received", ceReceived);
        m.put("out_of_sequence_drops", outOfSequenceDrops);
        m.put("duplicates", duplicates);
        m.put("qp_errors", qpErrors);
        m.put("data_packets_sent", dataPacketsSent);
        m.put("internal_errors", internalErrors);
        m.put("cross_packets_discarded", crossDiscarded);
        if (trimming) {
            m.put("trimmed_drops", trimmedDrops);
        }
        return m;
    }
}
