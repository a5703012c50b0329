/**
 * Whether this process keeps the prices it was given on disk, beside the catalog: turnlog's
 * command does (`runAsProcess` says so at its start); a library caller's inspections price from
 * memory alone unless it named the catalog (`TURNLOG_CATALOG`), so that a project importing
 * turnlog finds no file written in its folder. Apart from the kept prices' module, which loads
 * the catalog's location: every command's start loads this one.
 *
 * @module
 */

let command = false;

/** Says that this process is turnlog's command: its prices are kept beside its catalog. */
export function keepPricesOnDisk(): void {
  command = true;
}

/** Whether {@linkcode keepPricesOnDisk} was called in this process. */
export function pricesKeptOnDisk(): boolean {
  return command;
}
