/**
 * The words of the embedded model's rules: the verbs each rule listens for, and how a message's
 * words, paths, quoted texts and backquoted commands are picked out of it.
 *
 * @module
 */
import { oneLine } from "../text/mod.ts";

/** The words of the write rule (whole words, case-insensitive, as every list here). */
export const WRITE_WORDS = ["write", "create", "save"];
/** The words of the read rule. */
export const READ_WORDS = ["read", "open", "show", "cat", "view", "print"];
/** The words of the search rule. */
export const SEARCH_WORDS = ["search", "grep", "find"];
/** The words of the list rule. */
export const LIST_WORDS = ["list", "ls", "files", "dir", "directory", "folder"];
/** The words of the slow task rule. */
export const SLOW_WORDS = ["slow", "wait", "sleep", "long"];
/** The words of the shell command rule. */
export const RUN_WORDS = ["run", "exec", "execute"];
/** The words of the retry rule. */
export const CONTINUE_WORDS = ["continue", "retry", "resume", "again", "finish"];
/** Words after "in" that mean the workspace itself rather than a folder name. */
export const HERE_WORDS = [
  "this",
  "that",
  "my",
  "current",
  "folder",
  "directory",
  "dir",
  "workspace",
  "here",
];
/** Words between "search for" and the text searched. */
export const FILLER_WORDS = [
  "for",
  "the",
  "a",
  "an",
  "text",
  "word",
  "string",
  "pattern",
  "all",
  "of",
];

/** The commands a message quotes in backticks, in order: `run \`ls\` and \`pwd\`` gives ls, pwd. */
export function backquoted(message: string): string[] {
  return [...message.matchAll(/`([^`]+)`/g)].map((match) => match[1]!.trim())
    .filter((command) => command !== "");
}

/** The lowercase words of a text. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[a-z]+/g) ?? [];
}

/** The path-like words of a message (outside quotes first), and its quoted texts. */
export function pathsOf(message: string): { paths: string[]; quoted: string[] } {
  const quoted: string[] = [];
  const quotePattern = /"([^"]*)"|`([^`]*)`|(?:^|(?<=\s))'([^']*)'(?=$|[\s.,;:!?])/g;
  const unquoted = message.replace(quotePattern, (_all, a, b, c) => {
    quoted.push(a ?? b ?? c ?? "");
    return " ";
  });
  const paths: string[] = [];
  for (const raw of unquoted.split(/\s+/)) {
    const token = cleanToken(raw);
    if (looksLikePath(token) && !paths.includes(token)) paths.push(token);
  }
  if (paths.length === 0) {
    for (const text of quoted) if (looksLikePath(text) && !paths.includes(text)) paths.push(text);
  }
  return { paths, quoted };
}

/** A token without the brackets, quotes and punctuation around it. */
export function cleanToken(raw: string): string {
  let token = raw.replace(/^[([{"'`]+/, "").replace(/[)\]}"'`,;:!?]+$/, "");
  if (/[^.]\.$/.test(token)) token = token.slice(0, -1);
  return token;
}

/** Whether a token is a path: `.`, a word with a `/` or a file extension. */
export function looksLikePath(token: string): boolean {
  if (token === "." || token === "..") return true;
  if (token === "" || /^\d+(\.\d+)*$/.test(token)) return false;
  return token.includes("/") || /^[^.].*\.[A-Za-z0-9]{1,8}$/.test(token) ||
    /^\.[A-Za-z0-9_-]+$/.test(token);
}

/**
 * The content of an unquoted write: "write hello world to out.txt" gives "hello world",
 * "create out.txt with hello" gives "hello"; "" when the message names none.
 */
export function unquotedContent(message: string, path: string): string {
  const at = message.indexOf(path);
  const before = message.slice(0, at).match(
    /\b(?:write|save|create)\s+(.+?)\s+(?:to|into|in)\s*$/i,
  );
  if (before) return before[1]!.replace(/^(?:the text|the words|text)\s+/i, "");
  const after = message.slice(at + path.length).match(/^\s+(?:with|containing|saying)\s+(.+)$/i);
  return after ? after[1]!.trim() : "";
}

/** The word right after one of `keywords`, skipping `skip` words (case-insensitive). */
export function wordAfter(message: string, keywords: string[], skip: string[]): string | undefined {
  const tokens = message.split(/\s+/).map(cleanToken).filter((token) => token !== "");
  const start = tokens.findIndex((token) => keywords.includes(token.toLowerCase()));
  if (start < 0) return undefined;
  for (const token of tokens.slice(start + 1)) {
    if (!skip.includes(token.toLowerCase())) return token;
  }
  return undefined;
}

/** A text on one line, shortened to `length`. */
export function gist(text: string, length = 80): string {
  return oneLine(text, length, "...");
}
