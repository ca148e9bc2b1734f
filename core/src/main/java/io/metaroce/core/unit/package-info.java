/**
 * Units: {@link io.metaroce.core.unit.Quantity}, the one parser for sizes, rates, times and fractions that
 * every command option and experiment file goes through.
 */
package io.metaroce.core.unit;
