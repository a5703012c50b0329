/**
 * Observable Plot for the charts, loaded without the one `Intl.NumberFormat` it makes as it
 * loads (for text marks' numbers): the first formatter a process makes costs about 16 ms, as
 * much as drawing both charts. While Plot loads, `Intl.NumberFormat("en-US")` (what Plot
 * asks for) is a formatter of turnlog's own, `formatNumber`, which writes the same text.
 *
 * @module
 */
// Imported first, so it replaces Intl.NumberFormat before Plot's modules are evaluated.
import { restoreNumberFormat } from "./_number_format.ts";
export * from "@observablehq/plot";

restoreNumberFormat();
