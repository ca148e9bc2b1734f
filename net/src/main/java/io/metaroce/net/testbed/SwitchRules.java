package io.metaroce.net.testbed;

import java.util.List;

/** The nft rules of a switch namespace: counters, random loss and the ECN phantom queue (see {@link Testbed}). */
final class SwitchRules {
    private SwitchRules() {
    }

    /** The nft script that creates a switch's table (see the class comment). */
    static String ruleset(TestbedSpec spec) {
        StringBuilder s = new StringBuilder();
        s.append("table bridge ").append(Testbed.NFT_TABLE).append(" {\n");
        s.append("\tcounter ipv4 { }\n\tcounter lost { }\n\tcounter marked { }\n");
        s.append("\tchain randloss {\n");
        String loss = lossRule(spec.lossRate());
        if (!loss.isEmpty()) {
            s.append("\t\t").append(loss).append('\n');
        }
        s.append("\t}\n");
        s.append("\tchain fabric {\n\t\ttype filter hook forward priority 0; policy accept;\n");
        s.append("\t\tether type ip counter name \"ipv4\" jump randloss\n");
        if (spec.ecnMarkBps() > 0) {
            long bytesPerSecond = Math.max(1, spec.ecnMarkBps() / 8);
            for (int h = 0; h < spec.hosts(); h++) {
                s.append("\t\toifname \"").append(Testbed.switchPort(h)).append("\" ether type ip limit rate over ")
                        .append(bytesPerSecond).append(" bytes/second burst ").append(spec.ecnBurstBytes())
                        .append(" bytes ip ecn { ect0, ect1 } counter name \"marked\" ip ecn set ce\n");
            }
        }
        s.append("\t}\n}\n");
        return s.toString();
    }

    /** The rule of the {@code randloss} chain for {@code loss}; empty for 0. */
    static String lossRule(double loss) {
        if (!(loss >= 0 && loss <= 1)) {
            throw new IllegalArgumentException("loss rate must lie in [0, 1]: " + loss);
        }
        long n = Math.round(loss * Testbed.LOSS_SCALE);
        if (n == 0) {
            return "";
        }
        return (n >= Testbed.LOSS_SCALE ? "" : "numgen random mod " + Testbed.LOSS_SCALE + " < " + n + " ")
                + "counter name \"lost\" drop";
    }

    /** Loads {@code script} into nft in namespace {@code ns} (one transaction). */
    static void apply(String ns, String script) {
        Shell.check(script, List.of(Shell.require("ip"), "netns", "exec", ns, Shell.require("nft"), "-f", "-"));
    }
}
