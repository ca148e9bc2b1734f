package io.metaroce.net;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** IPv4 addresses as the datapath keeps them: one int in network order (the batches, the peer table, CM). */
final class Ipv4 {
    private Ipv4() {
    }

    static int of(byte[] b) {
        if (b.length != 4) {
            throw new IllegalArgumentException("IPv4 only for now: " + b.length + "-byte address");
        }
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
    }

    static int of(InetAddress a) {
        return of(a.getAddress());
    }

    static byte[] bytes(int a) {
        return new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a};
    }

    static InetAddress address(int a) {
        try {
            return InetAddress.getByAddress(bytes(a));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen for 4 bytes
        }
    }
}
