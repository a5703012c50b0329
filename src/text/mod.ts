/**
 * Text for people: clipping, numbers and sizes, visible control characters, colour and shell
 * quoting, written once and used by every view.
 *
 * @module
 */
export * from "./_clip.ts";
export * from "./_color.ts";
export * from "./_format.ts";
export * from "./_shell.ts";
export * from "./_terminal.ts";
export * from "./_visible.ts";
export * from "./_wrap.ts";
export * from "./_order.ts";
