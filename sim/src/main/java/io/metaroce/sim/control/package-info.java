/**
 * E7's central flow controller: INT-like telemetry of the switch-to-switch links, the flows of a transport as a
 * controller sees and re-pins them, and the controller that moves the fastest flows off hot links.
 */
package io.metaroce.sim.control;
