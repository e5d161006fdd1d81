// Expands `{{ vars.x }}`, `{{ tags.k }}`, `{{ attributes.a }}` and `{{ secrets.S }}` in a
// module's string properties, in one pass (a value put in is never scanned again, so a var
// cannot smuggle in a secret reference). The orchestrator expands because it holds all four
// sources; agents get resolved properties. Properties marked literal (file `content`) are
// never expanded.
import { RESOURCE_PROPERTIES, scanTemplate, type ModuleDefinition, type PropertyValue, type VarValue } from '../../common/modules/index.js';
import type { StateResource } from '../../common/protocol.js';

export interface ExpansionSources {
  /** Request vars; they override each module's defaults, by name. */
  vars: Record<string, VarValue>;
  tags: Record<string, string>;
  attributes: Record<string, unknown>;
  /** A secret's value (or the mask, for the stored copy). */
  secret: (name: string) => string;
}

export interface ExpandedResource extends StateResource {
  /** Secret names the resource's properties reference. */
  secrets: string[];
}

export class TemplateError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'TemplateError';
  }
}

function attributeText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object')) return v.join(',');
  return JSON.stringify(v);
}

export function expandModule(def: ModuleDefinition, sources: ExpansionSources, problems: string[]): ExpandedResource[] {
  const vars: Record<string, VarValue> = { ...def.vars };
  for (const [k, v] of Object.entries(sources.vars)) if (k in def.vars) vars[k] = v;

  const out: ExpandedResource[] = [];
  for (const r of def.resources) {
    const used = new Set<string>();
    const where = `module ${def.name}, resource "${r.id}"`;
    const expand = (text: string, field: string): string => {
      const scan = scanTemplate(text);
      if (scan.errors.length) {
        problems.push(`${where}, ${field}: ${scan.errors[0]!.message}`);
        return text;
      }
      let result = '';
      let from = 0;
      for (const ref of scan.references) {
        const close = text.indexOf('}}', ref.offset) + 2;
        result += text.slice(from, ref.offset);
        from = close;
        switch (ref.namespace) {
          case 'vars':
            if (!(ref.key in vars)) problems.push(`${where}, ${field}: vars.${ref.key} has no value`);
            else result += String(vars[ref.key]);
            break;
          case 'tags':
            if (!(ref.key in sources.tags)) problems.push(`${where}, ${field}: the agent has no tag "${ref.key}"`);
            else result += sources.tags[ref.key];
            break;
          case 'attributes':
            if (!(ref.key in sources.attributes) || sources.attributes[ref.key] === null) problems.push(`${where}, ${field}: the agent has not reported attribute "${ref.key}"`);
            else result += attributeText(sources.attributes[ref.key]);
            break;
          case 'secrets':
            used.add(ref.key);
            try {
              result += sources.secret(ref.key);
            } catch (err) {
              problems.push(`${where}, ${field}: ${err instanceof Error ? err.message : String(err)}`);
            }
            break;
        }
      }
      return result + text.slice(from);
    };

    const specs = RESOURCE_PROPERTIES[r.type];
    const properties: Record<string, PropertyValue> = {};
    for (const [key, value] of Object.entries(r.properties)) {
      const spec = specs[key];
      const literal = spec?.type.kind === 'string' && spec.type.literal === true;
      if (literal || spec?.type.kind === 'regex') properties[key] = value;
      else if (typeof value === 'string') properties[key] = expand(value, key);
      else if (Array.isArray(value)) properties[key] = value.map((v, i) => expand(v, `${key}[${i}]`));
      else if (typeof value === 'object') properties[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, `${key}.${k}`)]));
      else properties[key] = value;
    }
    out.push({ module: def.name, id: r.id, type: r.type, properties, requires: r.requires, notify: r.notify, secrets: [...used].sort() });
  }
  return out;
}

/** Every module in order; throws TemplateError naming each reference that has no value. */
export function expandModules(defs: readonly ModuleDefinition[], sources: ExpansionSources): ExpandedResource[] {
  const problems: string[] = [];
  const resources = defs.flatMap((d) => expandModule(d, sources, problems));
  if (problems.length) throw new TemplateError(problems);
  return resources;
}

/** The resources as the agent gets them (without the orchestrator's bookkeeping). */
export function toWire(resources: readonly ExpandedResource[]): StateResource[] {
  return resources.map(({ secrets: _secrets, ...r }) => r);
}
