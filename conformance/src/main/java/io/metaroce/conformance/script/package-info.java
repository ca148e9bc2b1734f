/**
 * The case script format ({@code docs/conformance/SCRIPT-FORMAT.md}): parsing with line-numbered errors,
 * values and expressions, families of cases expanded from one template.
 */
package io.metaroce.conformance.script;
