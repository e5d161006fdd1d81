// Tag rules checked in the browser before a request, so mistakes show beside the field at
// once. The orchestrator checks the same rules (common/schemas/agents.ts) and has the last word.
import { SELECTOR_KEY_PATTERN, SELECTOR_VALUE_PATTERN, TAG_KEY_MAX_LENGTH } from '../../../../common/selector.js';

/** common/schemas/agents.ts TagValue maxLength. */
export const TAG_VALUE_MAX_LENGTH = 255;
/** The orchestrator's limit per agent (ReplaceTagsRequest maxProperties). */
export const MAX_TAGS = 100;

export function tagKeyProblem(key: string): string | undefined {
  if (!key) return 'enter a key';
  if (key.length > TAG_KEY_MAX_LENGTH) return `at most ${TAG_KEY_MAX_LENGTH} characters`;
  if (!/^[a-z0-9]/.test(key)) return 'must start with a lower-case letter or digit';
  if (!SELECTOR_KEY_PATTERN.test(key)) {
    const bad = [...key].find((c) => !/[a-z0-9._/-]/.test(c));
    return `${bad === undefined ? 'invalid character' : `"${bad}" is not allowed`}: use a-z 0-9 . _ / -`;
  }
  return undefined;
}

export function tagValueProblem(value: string): string | undefined {
  return value.length > TAG_VALUE_MAX_LENGTH ? `at most ${TAG_VALUE_MAX_LENGTH} characters (this one has ${value.length})` : undefined;
}

/** The selector that picks agents with this tag: `key=value`, or just `key` when the value cannot be written in a selector. */
export function selectorFor(key: string, value?: string): string {
  if (value === undefined) return key;
  return SELECTOR_VALUE_PATTERN.test(value) ? `${key}=${value}` : key;
}

export function valueSelectable(value: string): boolean {
  return SELECTOR_VALUE_PATTERN.test(value);
}

export interface TagLine {
  line: number;
  key: string;
  value: string;
}

export interface ParsedTagLines {
  tags: TagLine[];
  /** "line 3: ..." messages. */
  problems: { line: number; message: string }[];
}

/** `key=value` per line; blank lines and lines starting with # are skipped. */
export function parseTagLines(text: string): ParsedTagLines {
  const tags: TagLine[] = [];
  const problems: { line: number; message: string }[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (!trimmed || trimmed.startsWith('#')) return;
    const eq = trimmed.indexOf('=');
    if (eq < 0) {
      problems.push({ line, message: 'expected key=value' });
      return;
    }
    const key = trimmed.slice(0, eq).trim();
    const value = raw.slice(raw.indexOf('=') + 1).trim();
    const keyProblem = tagKeyProblem(key);
    if (keyProblem) problems.push({ line, message: `key "${key}": ${keyProblem}` });
    const valueProblem = tagValueProblem(value);
    if (valueProblem) problems.push({ line, message: `value: ${valueProblem}` });
    const earlier = seen.get(key);
    if (earlier !== undefined) problems.push({ line, message: `key "${key}" is already on line ${earlier}` });
    seen.set(key, line);
    tags.push({ line, key, value });
  });
  if (tags.length > MAX_TAGS) problems.push({ line: tags[MAX_TAGS]!.line, message: `at most ${MAX_TAGS} tags per agent` });
  return { tags, problems };
}

export function formatTagLines(tags: Record<string, string>): string {
  return Object.entries(tags)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}
