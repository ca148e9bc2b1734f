/**
 * What the commands share about their options: picocli type converters for the one unit grammar
 * ({@link io.metaroce.cli.options.Converters}), {@code HOST:PORT} parsing with IPv6
 * ({@link io.metaroce.cli.options.HostPort}).
 */
package io.metaroce.cli.options;
