package io.metaroce.conformance;

/** Version of the compliance suite's script format and agent control protocol. */
public final class SuiteVersion {
    /** Script format version understood by this suite. */
    public static final int SCRIPT_FORMAT = 1;

    private SuiteVersion() {
    }
}
