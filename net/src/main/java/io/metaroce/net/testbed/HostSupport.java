package io.metaroce.net.testbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Whether this machine can build a test bed: Linux, root, {@code ip}/{@code tc}/{@code nft}, usable namespaces. */
final class HostSupport {
    private HostSupport() {
    }

    /**
     * Why the test bed cannot be built on this machine (not Linux, not root, {@code ip}/{@code tc}/{@code nft}
     * missing, network namespaces unusable), or empty when it can.
     */
    static Optional<String> unsupportedReason() {
        String os = System.getProperty("os.name", "");
        if (!os.toLowerCase(Locale.ROOT).contains("linux")) {
            return Optional.of("the test bed needs Linux network namespaces (this is " + os + ")");
        }
        long uid = effectiveUid();
        if (uid != 0) {
            return Optional.of("the test bed needs root (effective uid " + (uid < 0 ? "unknown" : uid)
                    + "): network namespaces, tc and nft need CAP_NET_ADMIN; run as root, e.g. with sudo");
        }
        for (String tool : List.of("ip", "tc", "nft")) {
            if (Shell.find(tool).isEmpty()) {
                return Optional.of("the test bed needs `" + tool + "`, which is not installed (Debian: apt-get "
                        + "install " + Shell.packageOf(tool) + ")");
            }
        }
        try {
            ExecResult r = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(Shell.require("ip"), "netns", "list"));
            if (!r.ok()) {
                return Optional.of("`ip netns list` fails (exit " + r.exitCode() + "): " + r.stderr().strip());
            }
        } catch (TestbedException e) {
            return Optional.of(e.getMessage());
        }
        return Optional.empty();
    }

    /** The effective uid of this process (from /proc/self/status), -1 when unknown. */
    static long effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Long.parseLong(line.substring(4).strip().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
