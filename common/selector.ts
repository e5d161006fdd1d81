// The one label-selector parser (DESIGN.md "Agents"): Kubernetes label-selector syntax
// over agent tags, used by the orchestrator (GET /agents?selector=, assignments,
// maintenance windows) and by the renderer's filter box. Browser-safe: no Node APIs.
//
// Grammar (whitespace — space, tab, CR, LF — is allowed around every token):
//
//   selector    = "" | requirement *( "," requirement )
//   requirement = key                           ; the tag exists
//               | "!" key                       ; the tag does not exist
//               | key ( "=" | "==" ) value      ; exists and equals
//               | key "!=" value                ; absent, or a different value
//               | key "in" "(" values ")"       ; exists and is one of the values
//               | key "notin" "(" values ")"    ; absent, or none of the values
//   values      = value *( "," value )          ; at least one, none empty
//   key         = [a-z0-9][a-z0-9._/-]{0,62}    ; the tag key pattern
//   value       = [A-Za-z0-9._/:@+-]{0,255}
//
// Decisions, following Kubernetes where it has one:
// - A value after "=", "==" or "!=" may be empty, as in Kubernetes: `env=` selects agents
//   whose env tag is the empty string (tag values may be empty).
// - Inside a set every value must be non-empty: `env in ()` and `env in (a,,b)` are errors
//   (Kubernetes quietly reads `()` as the set {""}, which is never what was meant).
// - Values may hold letters, digits and . _ - / : @ + . Nothing else, so the syntax stays
//   unambiguous: no spaces, commas, parentheses, "=", "!", quotes or non-ASCII. Tag values
//   outside that set can still be tested with `key` / `!key` but not compared.
// - "in" and "notin" are keywords only where an operator is expected, so a tag may be
//   called `in` (Kubernetes refuses such keys).
// - `!=` and `notin` also match agents that lack the key, exactly as in Kubernetes.
// - Set values are kept sorted and without duplicates; requirements keep their order
//   (they are AND-ed, so order does not change the meaning). Duplicate keys are allowed
//   and all their requirements must hold.
// - `position` in errors is a JavaScript string index (UTF-16 code units), ready for
//   `input.setSelectionRange()`.

export const TAG_KEY_MAX_LENGTH = 63;
export const SELECTOR_VALUE_MAX_LENGTH = 255;
/** The tag key pattern (common/schemas/agents.ts TAG_KEY_PATTERN; a test keeps the two equal). */
export const SELECTOR_KEY_PATTERN = /^[a-z0-9][a-z0-9._/-]{0,62}$/;
/** What a value in a selector may be; the empty value only after =, == and !=. */
export const SELECTOR_VALUE_PATTERN = /^[A-Za-z0-9._/:@+-]{0,255}$/;

export type Requirement =
  | { readonly key: string; readonly operator: 'exists' | 'not-exists' }
  | { readonly key: string; readonly operator: 'equals' | 'not-equals'; readonly value: string }
  | { readonly key: string; readonly operator: 'in' | 'notin'; readonly values: readonly string[] };

export interface Selector {
  /** All must hold; none means "every agent". */
  readonly requirements: readonly Requirement[];
}

export type Tags = Readonly<Record<string, string>>;

export class SelectorError extends Error {
  override readonly name = 'SelectorError';
  constructor(
    /** What is wrong, without the position. */
    readonly reason: string,
    /** 0-based index into the selector text. */
    readonly position: number,
  ) {
    super(`${reason} at position ${position}`);
  }
}

const KEY_FIRST = /[a-z0-9]/;
const KEY_REST = /[a-z0-9._/-]/;
const VALUE_CHAR = /[A-Za-z0-9._/:@+-]/;

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/** Characters that end a word: whitespace and the punctuation of the grammar. */
function endsWord(c: string): boolean {
  return isSpace(c) || c === ',' || c === '(' || c === ')' || c === '=' || c === '!';
}

class Parser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parse(): Selector {
    const requirements: Requirement[] = [];
    this.skipSpace();
    if (this.atEnd()) return { requirements };
    for (;;) {
      const start = this.pos;
      requirements.push(this.requirement());
      const end = this.pos;
      this.skipSpace();
      if (this.atEnd()) return { requirements };
      if (this.peek() !== ',') {
        this.fail(`expected "," or the end of the selector after "${this.text.slice(start, end)}", found ${this.found()}`);
      }
      this.pos++;
      this.skipSpace();
      if (this.atEnd()) this.fail('expected a requirement after ","');
    }
  }

  private requirement(): Requirement {
    if (this.peek() === '!') {
      this.pos++;
      this.skipSpace();
      return { key: this.key(' after "!"'), operator: 'not-exists' };
    }
    const key = this.key('');
    this.skipSpace();
    const c = this.peek();
    if (c === undefined || c === ',') return { key, operator: 'exists' };
    if (c === '=') {
      const op = this.text[this.pos + 1] === '=' ? '==' : '=';
      this.pos += op.length;
      return { key, operator: 'equals', value: this.exactValue(op) };
    }
    if (c === '!') {
      if (this.text[this.pos + 1] !== '=') this.fail(`expected "!=" after "${key}", found "!" without "="`);
      this.pos += 2;
      return { key, operator: 'not-equals', value: this.exactValue('!=') };
    }
    const start = this.pos;
    const word = this.word();
    if (word === 'in' || word === 'notin') return { key, operator: word, values: this.set(word) };
    this.pos = start;
    this.fail(`expected an operator (=, ==, !=, in, notin), "," or the end of the selector after "${key}", found ${this.found()}`);
  }

  private key(context: string): string {
    const start = this.pos;
    const key = this.word();
    if (!key) this.fail(`expected a tag key${context}, found ${this.found()}`);
    if (!KEY_FIRST.test(key[0]!)) {
      this.fail(`tag key must start with a lower-case letter or digit, found ${describe(key, 0)}`, start);
    }
    for (let i = 1; i < key.length; i++) {
      if (!KEY_REST.test(key[i]!)) {
        this.fail(`invalid character ${describe(key, i)} in tag key (allowed: a-z 0-9 . _ / -)`, start + i);
      }
    }
    if (key.length > TAG_KEY_MAX_LENGTH) this.fail(`tag key longer than ${TAG_KEY_MAX_LENGTH} characters`, start + TAG_KEY_MAX_LENGTH);
    return key;
  }

  /** The value after =, == or !=; empty when a comma or the end follows, as in Kubernetes. */
  private exactValue(op: string): string {
    this.skipSpace();
    const c = this.peek();
    if (c === undefined || c === ',') return '';
    const value = this.value();
    if (value === undefined) this.fail(`expected a value after "${op}", found ${this.found()}`);
    return value;
  }

  private set(op: 'in' | 'notin'): string[] {
    this.skipSpace();
    if (this.peek() !== '(') this.fail(`expected "(" after "${op}", found ${this.found()}`);
    const open = this.pos++;
    const values = new Set<string>();
    for (;;) {
      this.skipSpace();
      const value = this.value();
      if (value === undefined) {
        const hint = this.peek() === ')' && values.size === 0 ? ' (a set needs at least one value)' : '';
        this.fail(`expected a value, found ${this.found()}${hint}`);
      }
      values.add(value);
      this.skipSpace();
      const c = this.peek();
      if (c === ')') {
        this.pos++;
        return [...values].sort(compare);
      }
      if (c !== ',') this.fail(`expected "," or ")" to close the set opened at position ${open}, found ${this.found()}`);
      this.pos++;
    }
  }

  /** A non-empty value, checked; undefined when no word starts here. */
  private value(): string | undefined {
    const start = this.pos;
    const value = this.word();
    if (!value) return undefined;
    for (let i = 0; i < value.length; i++) {
      if (!VALUE_CHAR.test(value[i]!)) {
        this.fail(`invalid character ${describe(value, i)} in value (allowed: A-Z a-z 0-9 . _ - / : @ +)`, start + i);
      }
    }
    if (value.length > SELECTOR_VALUE_MAX_LENGTH) {
      this.fail(`value longer than ${SELECTOR_VALUE_MAX_LENGTH} characters`, start + SELECTOR_VALUE_MAX_LENGTH);
    }
    return value;
  }

  /** Everything up to the next whitespace or punctuation; checked by the caller. */
  private word(): string {
    const start = this.pos;
    while (this.pos < this.text.length && !endsWord(this.text[this.pos]!)) this.pos++;
    return this.text.slice(start, this.pos);
  }

  private skipSpace(): void {
    while (isSpace(this.text[this.pos])) this.pos++;
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  private found(): string {
    return this.atEnd() ? 'the end of the selector' : describe(this.text, this.pos);
  }

  private fail(reason: string, position = this.pos): never {
    throw new SelectorError(reason, position);
  }
}

/** The character at `index`, whole even when it is a surrogate pair, quoted. */
function describe(text: string, index: number): string {
  const code = text.codePointAt(index)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (code < 0x20 || code === 0x7f) return hex;
  const char = `"${String.fromCodePoint(code)}"`;
  return code < 0x7f ? char : `${char} (${hex})`;
}

/** Code-unit order: the same in every JavaScript engine and locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Parses selector text; throws SelectorError naming the position of the first problem. */
export function parseSelector(text: string): Selector {
  return new Parser(text).parse();
}

function has(tags: Tags, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(tags, key);
}

function holds(r: Requirement, tags: Tags): boolean {
  const present = has(tags, r.key);
  switch (r.operator) {
    case 'exists':
      return present;
    case 'not-exists':
      return !present;
    case 'equals':
      return present && tags[r.key] === r.value;
    case 'not-equals':
      return !present || tags[r.key] !== r.value;
    case 'in':
      return present && r.values.includes(tags[r.key]!);
    case 'notin':
      return !present || !r.values.includes(tags[r.key]!);
  }
}

/** Whether every requirement holds for the tags; the empty selector matches everything. */
export function matchesSelector(selector: Selector, tags: Tags): boolean {
  return selector.requirements.every((r) => holds(r, tags));
}

function formatRequirement(r: Requirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case 'not-exists':
      return `!${r.key}`;
    case 'equals':
      return `${r.key}=${r.value}`;
    case 'not-equals':
      return `${r.key}!=${r.value}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
  }
}

/**
 * The canonical text: no optional whitespace, "=" rather than "==", set values sorted
 * and unique, requirements in their original order, e.g.
 * `role=web,env in (prod,staging),!legacy,tier!=db`. Parsing it gives the same selector.
 */
export function formatSelector(selector: Selector): string {
  return selector.requirements.map(formatRequirement).join(',');
}

/** Parses once (throwing SelectorError) and returns a fast predicate over tag maps. */
export function compileSelector(text: string): (tags: Tags) => boolean {
  const selector = parseSelector(text);
  if (selector.requirements.length === 0) return () => true;
  return (tags) => matchesSelector(selector, tags);
}
