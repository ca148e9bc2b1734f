package io.metaroce.cli.perf;

import io.metaroce.net.Device;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The perftest-style header block a perf test prints before its table: role, device and datapath, the rates and agent
 * in force, planes, paths, depths, what the latency or bandwidth columns mean, and both ends' buffer addresses.
 */
final class HeaderBlock {
    private HeaderBlock() {
    }

    /** Prints the block for {@code kind} run with {@code o} on {@code device} (not again for -a's later sizes). */
    static void print(PrintWriter out, TestKind kind, PerfOptions o, Device device, List<Endpoint> eps,
            String latencyNote) {
        if (o.continuesTable) {
            return; // -a: the header block came with the first size
        }
        String dash = "-".repeat(87);
        out.println(dash);
        out.printf(Locale.ROOT, "                    %s (metaroce perf %s)%n", kind.title(), kind.id());
        out.printf(Locale.ROOT, " Role            : %s%n", o.server() ? "server" : "client -> " + o.host + ":" + o.port);
        out.printf(Locale.ROOT, " Device          : MetaRoCE-J over UDP, %s%n", device.transportName());
        out.printf(Locale.ROOT, " Datapath        : GRO %s, GSO %s, scatter-gather send, ACK bundles %s, source ports %d..%d%n",
                device.groActive() ? "on" : "off", o.noGso ? "off" : "on", device.config().ackBundle ? "on" : "off",
                device.basePort(), device.basePort() + device.config().paths - 1);
        out.printf(Locale.ROOT, " Rates           : %s%n", device.rateSummary());
        out.printf(Locale.ROOT, " Agent           : %s%n", device.inline() ? "inline (this tool's thread runs the device)"
                : "own I/O thread");
        List<String> planes = new ArrayList<>();
        device.planeAddresses().forEach(a -> planes.add(a.getAddress().getHostAddress() + ":" + a.getPort()));
        out.printf(Locale.ROOT, " Planes          : %d (%s)%n", planes.size(), String.join(", ", planes));
        out.printf(Locale.ROOT, " Paths per QP    : %-12d Mtu             : %d[B]%n", device.config().paths, o.payloadMtu());
        out.printf(Locale.ROOT, " Number of qps   : %-12d TX depth        : %d%n", o.qps, o.txDepth);
        if (kind == TestKind.SEND_BW && o.server()) {
            out.printf(Locale.ROOT, " RX depth        : %d%n", o.rxDepthValue());
        }
        out.printf(Locale.ROOT, " %-16s: %-12d Idle            : %s%n", o.server() ? "Max message size" : "Message size",
                o.size(), o.idle.toLowerCase(Locale.ROOT));
        if (o.authKey != null) {
            out.printf(Locale.ROOT, " Authentication  : AES-128-GCM per packet (%s), keys from %s%n",
                    o.encrypt ? "payloads encrypted if the peer agrees" : "payloads authenticated", o.authKey);
        }
        if (o.durationS != null) {
            out.printf(Locale.ROOT, " Duration        : %s s%n", o.durationS);
        }
        if (o.omitS > 0) {
            out.printf(Locale.ROOT, " Omitted         : the first %s s (messages flow, no figure counts them)%n", o.omitS);
        }
        if (o.injectLoss > 0) {
            out.printf(Locale.ROOT, " Injected loss   : %s  (TEST ONLY: receiver-side drop of this device's received "
                    + "datagrams, not network loss)%n", o.injectLoss);
        }
        if (latencyNote != null) {
            out.printf(Locale.ROOT, " Latency         : %s%n", latencyNote);
            if (!o.server()) {
                out.printf(Locale.ROOT, " Warm-up         : %s%n", !o.warmupDefaulted ? o.warmup + " ping-pongs, not measured"
                        : o.warmup > 0 ? o.warmup + " ping-pongs or " + PerfOptions.LATENCY_WARMUP_LIMIT_NS / 1_000_000_000L
                                + " s, whichever ends first, not measured"
                        : "none (the first size warmed up)");
            }
        } else {
            out.printf(Locale.ROOT, " BW peak         : best 100 ms sample of completed bytes (the average if the run "
                    + "is shorter)%n");
        }
        out.println(dash);
        for (Endpoint ep : eps) {
            out.printf(Locale.ROOT, " local address:  QPN %s VA 0x%016x len %d rkey %s%n", Session.hex(ep.qp.qpn()),
                    ep.mine.address(), ep.mine.length(), Session.hex(ep.mine.rkey()));
            out.printf(Locale.ROOT, " remote address: QPN %s VA 0x%016x len %d rkey %s%n",
                    ep.remoteQpn < 0 ? "?" : Session.hex(ep.remoteQpn), ep.peer.address(), ep.peer.length(), Session.hex(ep.peer.rkey()));
        }
        out.println(dash);
        out.flush();
        }
}
