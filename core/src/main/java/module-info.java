/** The sans-IO MetaRoCE engine: wire format, verbs model, multipath reliability, congestion control. */
module io.metaroce.core {
    exports io.metaroce.core;
    exports io.metaroce.core.wire;
    exports io.metaroce.core.auth;
    exports io.metaroce.core.unit;
}
