/** The metaroce command line. */
module io.metaroce.cli {
    requires io.metaroce.core;
    requires io.metaroce.net;
    requires info.picocli;
    opens io.metaroce.cli to info.picocli;
}
