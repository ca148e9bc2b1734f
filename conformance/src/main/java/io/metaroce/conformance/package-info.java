/**
 * The compliance suite: the catalogue of cases ({@link io.metaroce.conformance.Suite}), the runner that plays a
 * case against a target, results and reports (JUnit XML, JSON, HTML), and the spec-ID coverage table.
 */
package io.metaroce.conformance;
