/**
 * Token estimates: what compaction counts before a model has reported any usage.
 *
 * @module
 */

/**
 * A token estimate of a text: a quarter of its characters, the usual figure for English and
 * code with OpenAI's tokenizers (the embedded model counts the same way).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
