// A channel's message template: plain text with {{ placeholder }}s (whitespace inside the
// braces optional). No logic, no escaping: a template is checked when the channel is saved
// so a send never meets an unknown name.
import { TEMPLATE_FIELDS, type TemplateField } from '../../../common/schemas/channels.js';
import type { FleetEvent } from '../../../common/schemas/events.js';
import type { FieldError } from '../../http/errors.js';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

const isField = (name: string): name is TemplateField => (TEMPLATE_FIELDS as readonly string[]).includes(name);

function position(template: string, index: number): { line: number; column: number } {
  const before = template.slice(0, index).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** Problems with a template: unknown or empty placeholders, a "{{" never closed. */
export function checkTemplate(template: string, field = 'template'): FieldError[] {
  const errors: FieldError[] = [];
  const known = TEMPLATE_FIELDS.join(', ');
  const seen = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) {
    const name = m[1]!;
    if (isField(name) || seen.has(name)) continue;
    seen.add(name);
    const { line } = position(template, m.index);
    const message = name === '' ? `empty placeholder {{ }}; known: ${known}` : `unknown placeholder {{ ${name} }}; known: ${known}`;
    errors.push({ field, message, line });
  }
  // What is left after removing the well-formed placeholders must hold no "{{".
  const rest = template.replace(PLACEHOLDER, (m) => ' '.repeat(m.length));
  const open = rest.indexOf('{{');
  if (open !== -1) {
    const { line, column } = position(template, open);
    errors.push({ field, message: `"{{" at line ${line}, column ${column} is never closed with "}}"`, line });
  }
  return errors;
}

/** The text a channel sends without a template: title, body, the node and the link, each when there is one. */
export function defaultText(fields: Record<TemplateField, string>): string {
  return [fields.title, fields.body, fields.node_id ? `Node: ${fields.node_id}` : '', fields.link].filter((line) => line !== '').join('\n');
}

/**
 * Fills a template (null: the default text). Generic over the fields, so a batch or a
 * digest renders the same way with the fields the queue builds for it (title "5 events",
 * body one line per event). An unknown placeholder, which checkTemplate refuses on save,
 * is left as written.
 */
export function renderMessage(template: string | null, fields: Record<TemplateField, string>): string {
  if (template === null) return defaultText(fields);
  return template.replace(PLACEHOLDER, (whole, name: string) => (isField(name) ? fields[name] : whole));
}

/** The fields for one event. */
export function eventTemplateFields(event: FleetEvent, extra: { link: string | null; channel: string }): Record<TemplateField, string> {
  return {
    kind: event.kind,
    severity: event.severity,
    title: event.title,
    body: event.body,
    node_id: event.node_id ?? '',
    operation_id: event.operation_id ?? '',
    time: event.created_at,
    link: extra.link ?? '',
    channel: extra.channel,
  };
}
