import type { Static } from 'typebox';
import type { ProblemFieldError } from '../../../../common/schemas/shared.js';

type FieldError = Static<typeof ProblemFieldError>;

/**
 * Field errors of one form, from a problem body's `errors[]`. Fields arrive as
 * "body.public_keys.0", "body.config.to[1]" or "querystring.since"; forms ask by
 * "public_keys" or "config.to".
 */
export class FormErrors {
  list = $state<FieldError[]>([]);

  set(errors: FieldError[]): void {
    this.list = errors;
  }

  add(field: string, message: string): void {
    this.list = [...this.list, { field, message }];
  }

  clear(): void {
    this.list = [];
  }

  get any(): boolean {
    return this.list.length > 0;
  }

  /** Messages for a form field, joined; undefined when it has none. */
  for(name: string): string | undefined {
    const messages = this.list
      .filter((e) => {
        const field = e.field.replace(/^(body|querystring|params)\.?/, '');
        return field === name || field.startsWith(name + '.') || field.startsWith(name + '[');
      })
      .map((e) => e.message);
    const unique = messages.filter((m, i) => messages.indexOf(m) === i);
    return unique.length ? unique.join('; ') : undefined;
  }
}
