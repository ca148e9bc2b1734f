/**
 * Where a case runs: our engine in process on virtual time, or a remote implementation's agent over UDP with
 * timing tolerances; both behind one target interface.
 */
package io.metaroce.conformance.target;
