/**
 * The {@code metaroce} command line (picocli): {@code demo}, {@code testbed}, {@code conformance},
 * {@code agent}, and the entry point {@link io.metaroce.cli.Main} that gathers the subcommands of the
 * {@code perf} and {@code sim} packages.
 */
package io.metaroce.cli;
