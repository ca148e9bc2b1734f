/** The black-box compliance suite: wire-level scripts, in-process and remote targets, reports. */
module io.metaroce.conformance {
    requires transitive io.metaroce.core;
    requires io.metaroce.net;
    exports io.metaroce.conformance;
    exports io.metaroce.conformance.script;
    exports io.metaroce.conformance.target;
    exports io.metaroce.conformance.agent;
}
