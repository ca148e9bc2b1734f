package io.metaroce.cli.options;

import java.net.InetSocketAddress;

/**
 * {@code HOST:PORT} values: {@code 127.0.0.1:7000}, {@code host.example:7000}, {@code [::1]:7000},
 * {@code [fe80::1%eth0]:7000}. An IPv6 literal needs its brackets ({@code ::1:7000} is ambiguous). The host is
 * resolved; the port must lie in 0..65535.
 */
public final class HostPort {
    private HostPort() {
    }

    /**
     * Parses {@code value}.
     *
     * @param value {@code HOST:PORT} or {@code [IPV6]:PORT}
     * @return the resolved socket address
     * @throws IllegalArgumentException with a one-line message on anything else, or an unknown host
     */
    public static InetSocketAddress parse(String value) {
        String v = value == null ? "" : value.strip();
        int colon = v.lastIndexOf(':');
        if (colon <= 0 || colon == v.length() - 1) {
            throw bad(value, "HOST:PORT");
        }
        String host = v.substring(0, colon);
        if (host.startsWith("[")) {
            if (!host.endsWith("]") || host.length() < 3) {
                throw bad(value, "[IPV6]:PORT");
            }
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw bad(value, "[IPV6]:PORT (an IPv6 address in brackets)");
        }
        int port;
        try {
            port = Integer.parseInt(v.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw bad(value, "HOST:PORT with a numeric port");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port " + port + " in '" + value + "' is not in 0..65535");
        }
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new IllegalArgumentException("unknown host '" + host + "' in '" + value + "'");
        }
        return a;
    }

    private static IllegalArgumentException bad(String value, String want) {
        return new IllegalArgumentException("expected " + want + ", got '" + value + "'");
    }
}
