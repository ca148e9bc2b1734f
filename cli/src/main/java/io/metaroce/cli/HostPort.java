package io.metaroce.cli;

import java.net.InetSocketAddress;

/** {@code HOST:PORT} option values ({@code --listen}, {@code --target}). */
public final class HostPort {
    private HostPort() {
    }

    /** Parses {@code value} of option {@code option}; a bad value is an IllegalArgumentException naming both. */
    public static InetSocketAddress parse(String option, String value) {
        int colon = value.lastIndexOf(':');
        if (colon > 0) {
            try {
                int port = Integer.parseInt(value.substring(colon + 1));
                if (port >= 0 && port <= 65535) {
                    return new InetSocketAddress(value.substring(0, colon), port);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException(option + " wants HOST:PORT, got " + value);
    }
}
