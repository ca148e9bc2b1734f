package io.metaroce.net;

/** Names of the Linux errno values the datapath can meet, for error messages. */
final class Errno {
    private Errno() {
    }

    static String name(int e) {
        return switch (e) {
            case 1 -> "EPERM";
            case 4 -> "EINTR";
            case 9 -> "EBADF";
            case 11 -> "EAGAIN";
            case 13 -> "EACCES";
            case 22 -> "EINVAL";
            case 24 -> "EMFILE";
            case 90 -> "EMSGSIZE";
            case 92 -> "ENOPROTOOPT";
            case 97 -> "EAFNOSUPPORT";
            case 98 -> "EADDRINUSE";
            case 99 -> "EADDRNOTAVAIL";
            case 101 -> "ENETUNREACH";
            case 111 -> "ECONNREFUSED";
            case 113 -> "EHOSTUNREACH";
            default -> "errno " + e;
        };
    }
}
