/**
 * A stand-in for `Intl.NumberFormat` while Observable Plot loads (`./_plot.ts`): the default
 * `en-US` formatter is `formatNumber`, which writes what `Intl.NumberFormat("en-US")` writes
 * and makes a real formatter only for a number that is not a safe integer; any other locale
 * or options get a real one.
 *
 * @module
 */
import { formatNumber } from "../text/mod.ts";

const RealNumberFormat = Intl.NumberFormat;

/**
 * What `new Intl.NumberFormat(locales, options)` is while Plot loads (an object returned from
 * a function called with `new` is what `new` makes).
 */
export function PlainNumberFormat(
  locales?: string | string[],
  options?: Intl.NumberFormatOptions,
): Pick<Intl.NumberFormat, "format"> {
  return locales === "en-US" && options === undefined
    ? { format: formatPlain }
    : new RealNumberFormat(locales, options);
}

/** What `Intl.NumberFormat("en-US").format` writes. */
function formatPlain(value: number | bigint): string {
  return typeof value === "number"
    ? formatNumber(value)
    : new RealNumberFormat("en-US").format(value);
}

const setNumberFormat = (value: unknown) =>
  Object.defineProperty(Intl, "NumberFormat", { value, writable: true, configurable: true });

/** Puts the real `Intl.NumberFormat` back, once Plot has loaded. */
export function restoreNumberFormat(): void {
  setNumberFormat(RealNumberFormat);
}

setNumberFormat(PlainNumberFormat);
