package io.metaroce.net.testbed;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Optional;

/** Builds a test bed's namespaces, links, bottleneck qdiscs and switch rules (the topology of {@link Testbed}). */
final class FabricBuilder {
    private FabricBuilder() {
    }

    /** Creates namespaces, veths, bridges, qdiscs and nft tables of {@code tb} as its spec says. */
    static void build(Testbed tb, TestbedSpec spec) {
        int planes = tb.planes();
        int hosts = tb.hosts();
        String ip = Shell.require("ip");
        String tc = Shell.require("tc");
        Optional<String> ethtool = Shell.find("ethtool");
        if (spec.offloadsOff() && ethtool.isEmpty()) {
            Shell.LOG.log(Level.WARNING, "ethtool is not installed: offloads stay on (apt-get install ethtool); "
                    + "rules and qdiscs may see GSO super-packets");
        }
        String mtu = Integer.toString(spec.mtu());
        for (int p = 0; p < planes; p++) {
            String sw = tb.switchNamespace(p);
            Shell.check(ip, "netns", "add", sw);
            quiet(sw);
            Shell.check(ip, "-n", sw, "link", "set", "lo", "up");
            Shell.check(ip, "-n", sw, "link", "add", Testbed.BRIDGE, "type", "bridge", "stp_state", "0", "mcast_snooping",
                    "0");
        }
        for (int h = 0; h < hosts; h++) {
            String hn = tb.hostNamespace(h);
            Shell.check(ip, "netns", "add", hn);
            quiet(hn);
            Shell.check(ip, "-n", hn, "link", "set", "lo", "up");
        }
        for (int h = 0; h < hosts; h++) {
            String hn = tb.hostNamespace(h);
            for (int p = 0; p < planes; p++) {
                String sw = tb.switchNamespace(p);
                String hostIf = Testbed.hostInterface(p);
                String swIf = Testbed.switchPort(h);
                Shell.check(ip, "-n", hn, "link", "add", hostIf, "type", "veth", "peer", "name", swIf, "netns", sw);
                Shell.check(ip, "-n", hn, "link", "set", hostIf, "mtu", mtu);
                Shell.check(ip, "-n", sw, "link", "set", swIf, "mtu", mtu, "master", Testbed.BRIDGE);
                Shell.check(ip, "-n", hn, "addr", "add", tb.address(h, p).getHostAddress() + "/24", "dev", hostIf);
                if (spec.offloadsOff() && ethtool.isPresent()) {
                    Shell.check(ip, "netns", "exec", hn, ethtool.get(), "-K", hostIf, "tso", "off", "gso", "off",
                            "gro", "off");
                    Shell.check(ip, "netns", "exec", sw, ethtool.get(), "-K", swIf, "tso", "off", "gso", "off",
                            "gro", "off");
                }
                if (spec.rateBps() > 0) {
                    String burst = Long.toString(spec.htbBurstBytes());
                    String rate = spec.rateBps() + "bit";
                    Shell.check(tc, "-n", sw, "qdisc", "add", "dev", swIf, "root", "handle", "1:", "htb", "default",
                            "1");
                    Shell.check(tc, "-n", sw, "class", "add", "dev", swIf, "parent", "1:", "classid", "1:1", "htb",
                            "rate", rate, "ceil", rate, "burst", burst, "cburst", burst, "quantum",
                            Integer.toString(Math.min(200_000, spec.mtu() + 14)));
                    if (spec.bufferBytes() > 0) {
                        Shell.check(tc, "-n", sw, "qdisc", "add", "dev", swIf, "parent", "1:1", "handle", "10:",
                                "bfifo", "limit", Long.toString(spec.bufferBytes()));
                    }
                }
                Shell.check(ip, "-n", sw, "link", "set", swIf, "up");
                Shell.check(ip, "-n", hn, "link", "set", hostIf, "up");
            }
        }
        for (int p = 0; p < planes; p++) {
            String sw = tb.switchNamespace(p);
            Shell.check(ip, "-n", sw, "link", "set", Testbed.BRIDGE, "mtu", mtu, "up");
            SwitchRules.apply(sw, SwitchRules.ruleset(spec));
        }
    }

    /** Disables IPv6 in namespace {@code ns} (best effort: no sysctl, no change). */
    private static void quiet(String ns) {
        Optional<String> sysctl = Shell.find("sysctl");
        if (sysctl.isEmpty()) {
            Shell.LOG.log(Level.DEBUG, "sysctl not installed; IPv6 stays on in " + ns);
            return;
        }
        ExecResult r = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(Shell.require("ip"), "netns", "exec", ns,
                sysctl.get(), "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1"));
        if (!r.ok()) {
            Shell.LOG.log(Level.WARNING, "could not disable IPv6 in " + ns + ": " + r.stderr().strip());
        }
    }
}
