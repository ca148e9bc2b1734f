package io.metaroce.cli.perf;

import java.io.Serial;

/** A failure that ends a perf run with a message for the user and a process exit code. */
final class PerfException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** Exit code: a run-time error (error completion, data mismatch, stall, bad peer parameters). */
    static final int ERROR = 1;
    /** Exit code: the connection could not be set up. */
    static final int CONNECT = 2;
    /** Exit code: the run finished but its acceptance criteria did not hold (verdict: fail). */
    static final int ACCEPTANCE = 3;

    private final int exitCode;

    PerfException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    PerfException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
