package io.metaroce.core;

/** Memory region access flags (bit set), after libibverbs' {@code ibv_access_flags}. */
public final class Access {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 2;
    public static final int REMOTE_READ = 4;
    /** Every access. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ;

    private Access() {
    }
}
