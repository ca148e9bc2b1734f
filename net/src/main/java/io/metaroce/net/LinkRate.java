package io.metaroce.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The line rate of the interfaces a device's planes are on, as the kernel reports it in
 * {@code /sys/class/net/IF/speed} (Mb/s, what {@code ethtool} prints). Only a physical interface's speed counts:
 * a virtual one (no {@code device} link in sysfs: veth, bridge, loopback, dummy, tun) either reports none or a
 * made-up figure (veth says 10000), so it has no known rate.
 */
final class LinkRate {
    private final Path sysClassNet;

    /** Reads under {@code sysClassNet} (normally {@code /sys/class/net}; tests give a directory of their own). */
    LinkRate(Path sysClassNet) {
        this.sysClassNet = sysClassNet;
    }

    static LinkRate system() {
        return new LinkRate(Path.of("/sys/class/net"));
    }

    /** The rate of interface {@code name} in bits/s, or 0 when unknown (virtual, down, or not reported). */
    long ofInterface(String name) {
        Path dir = sysClassNet.resolve(name);
        if (!Files.exists(dir.resolve("device"))) {
            return 0;
        }
        try {
            long mbps = Long.parseLong(Files.readString(dir.resolve("speed")).strip());
            return mbps > 0 ? mbps * 1_000_000 : 0;
        } catch (IOException | NumberFormatException e) {
            return 0; // EINVAL while the link is down, or no such file
        }
    }

    /** The rate of the interface holding {@code address}, in bits/s, or 0 when unknown. */
    long ofAddress(InetAddress address) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(address);
            return nif == null ? 0 : ofInterface(nif.getName());
        } catch (SocketException e) {
            return 0;
        }
    }

    /** The sum of the planes' rates in bits/s, or 0 when any plane's rate is unknown. */
    long ofPlanes(List<InetAddress> planes) {
        long sum = 0;
        for (InetAddress a : planes) {
            long r = ofAddress(a);
            if (r == 0) {
                return 0;
            }
            sum += r;
        }
        return sum;
    }
}
