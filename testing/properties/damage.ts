/**
 * Random damage to a session file's bytes, as fast-check arbitraries: what crashes, disks,
 * editors and careless copies do to a JSONL file. Each kind names where it strikes by a
 * number that is reduced modulo the file's size (or line count), so every drawn value applies
 * to any file and shrinks towards its start.
 *
 * @module
 */
import fc from "fast-check";

/** One piece of damage. */
export type Damage =
  | { kind: "truncate"; at: number }
  | { kind: "truncate_in_character"; at: number }
  | { kind: "bit_flip"; at: number; bit: number }
  | { kind: "nul_run"; at: number; length: number; overwrite: boolean }
  | { kind: "duplicate_line"; line: number }
  | { kind: "swap_lines"; line: number; other: number }
  | { kind: "glue_lines"; line: number }
  | { kind: "crlf"; line: number | "all" }
  | { kind: "bom" };

const position = fc.nat({ max: 1 << 30 });

/** An arbitrary piece of damage. */
export const damageArbitrary: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant("truncate" as const), at: position }),
  fc.record({ kind: fc.constant("truncate_in_character" as const), at: position }),
  fc.record({ kind: fc.constant("bit_flip" as const), at: position, bit: fc.nat({ max: 7 }) }),
  fc.record({
    kind: fc.constant("nul_run" as const),
    at: position,
    length: fc.integer({ min: 1, max: 64 }),
    overwrite: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("duplicate_line" as const), line: position }),
  fc.record({ kind: fc.constant("swap_lines" as const), line: position, other: position }),
  fc.record({ kind: fc.constant("glue_lines" as const), line: position }),
  fc.record({
    kind: fc.constant("crlf" as const),
    line: fc.oneof(position, fc.constant("all" as const)),
  }),
  fc.record({ kind: fc.constant("bom" as const) }),
);

/** Splits bytes into lines, each with its `\n` (the last one may have none). */
export function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 10) {
      lines.push(bytes.subarray(start, i + 1));
      start = i + 1;
    }
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}

function join(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function withoutNewline(line: Uint8Array): Uint8Array {
  return line.at(-1) === 10 ? line.subarray(0, -1) : line;
}

function toCrlf(line: Uint8Array): Uint8Array {
  const body = withoutNewline(line);
  if (body.length === line.length || body.at(-1) === 13) return line;
  return join([body, new Uint8Array([13, 10])]);
}

/** The bytes after one piece of damage (a new array; `bytes` is not changed). */
export function applyDamage(bytes: Uint8Array, damage: Damage): Uint8Array {
  const size = bytes.length;
  switch (damage.kind) {
    case "truncate":
      return bytes.slice(0, damage.at % (size + 1));
    case "truncate_in_character": {
      // Just after a lead byte of a multi-byte character; a plain cut when there is none.
      const leads = [...bytes.keys()].filter((i) => bytes[i]! >= 0xc0);
      if (leads.length === 0) return bytes.slice(0, damage.at % (size + 1));
      return bytes.slice(0, leads[damage.at % leads.length]! + 1);
    }
    case "bit_flip": {
      if (size === 0) return bytes.slice();
      const out = bytes.slice();
      out[damage.at % size]! ^= 1 << damage.bit;
      return out;
    }
    case "nul_run": {
      const at = damage.at % (size + 1);
      const nuls = new Uint8Array(damage.length);
      const rest = damage.overwrite ? Math.min(size, at + damage.length) : at;
      return join([bytes.subarray(0, at), nuls, bytes.subarray(rest)]);
    }
    case "bom":
      return join([new Uint8Array([0xef, 0xbb, 0xbf]), bytes]);
    default:
      return damageLines(splitLines(bytes), damage);
  }
}

function damageLines(lines: Uint8Array[], damage: Damage): Uint8Array {
  const count = lines.length;
  if (count === 0) return new Uint8Array();
  switch (damage.kind) {
    case "duplicate_line": {
      const i = damage.line % count;
      const line = lines[i]!.at(-1) === 10 ? lines[i]! : join([lines[i]!, new Uint8Array([10])]);
      lines.splice(i, 1, line, lines[i]!);
      break;
    }
    case "swap_lines": {
      // Only whole lines move; a last line without its newline stays last.
      const whole = lines.at(-1)!.at(-1) === 10 ? count : count - 1;
      if (whole < 2) break;
      const [i, j] = [damage.line % whole, damage.other % whole];
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      break;
    }
    case "glue_lines": {
      const i = damage.line % count;
      if (i === count - 1) break;
      lines[i] = withoutNewline(lines[i]!);
      break;
    }
    case "crlf":
      if (damage.line === "all") lines = lines.map(toCrlf);
      else lines[damage.line % count] = toCrlf(lines[damage.line % count]!);
      break;
  }
  return join(lines);
}

/** Applies every piece of damage in order. */
export function applyAll(bytes: Uint8Array, damages: readonly Damage[]): Uint8Array {
  return damages.reduce((current, damage) => applyDamage(current, damage), bytes);
}
