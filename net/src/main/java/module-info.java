/** The real datapath: UDP through the kernel (FFM on Linux, DatagramChannel elsewhere), the device agent, CM. */
module io.metaroce.net {
    requires transitive io.metaroce.core;
    requires org.jctools.core;
    exports io.metaroce.net;
    exports io.metaroce.net.cm;
    exports io.metaroce.net.testbed;
}
