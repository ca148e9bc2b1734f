/**
 * Virtual time: the discrete-event loop over integer picoseconds ({@link io.metaroce.sim.event.EventLoop}), its
 * handlers and re-armable timers, and the picosecond unit helpers ({@link io.metaroce.sim.event.Units}). Depends
 * on nothing else in the simulator; everything else depends on it.
 */
package io.metaroce.sim.event;
