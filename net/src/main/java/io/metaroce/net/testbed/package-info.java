/** The Linux network-namespace test bed (hosts, planes, rate, loss, ECN marking). */
package io.metaroce.net.testbed;
