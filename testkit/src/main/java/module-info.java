/**
 * The MetaRoCE test kit: engines joined by a deterministic simulated network on virtual time
 * ({@link io.metaroce.testkit.Network}), a bulk-transfer driver and the engine's random stress. For tests and
 * demos; it is not needed at run time.
 */
module io.metaroce.testkit {
    requires transitive io.metaroce.core;
    exports io.metaroce.testkit;
    exports io.metaroce.testkit.stress;
}
