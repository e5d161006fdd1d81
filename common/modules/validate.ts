// Parses and validates a module's YAML text. Browser-safe: the orchestrator
// checks uploads with it and the renderer's editor shows the same errors
// inline. Every error carries the 1-based line and, inside a resource, its id.
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, Scalar, type Node, type YAMLMap } from 'yaml';
import {
  closest,
  COMMON_RESOURCE_KEYS,
  MAX_MODULE_BYTES,
  MAX_RESOURCES,
  MODULE_NAME_PATTERN,
  NOTIFIABLE_TYPES,
  RESOURCE_ID_PATTERN,
  RESOURCE_PROPERTIES,
  RESOURCE_TYPES,
  scanTemplate,
  TOP_LEVEL_KEYS,
  VAR_NAME_PATTERN,
  type PropertySpec,
  type ResourceType,
} from './spec.js';

export interface ModuleError {
  /** 1-based line in the module text. */
  line: number;
  /** The id of the resource the error is in, when it is in one that has an id. */
  resource?: string;
  /** The key at fault: a top-level key ("name", "vars.port") or a resource property ("content"). */
  field?: string;
  message: string;
}

export type VarValue = string | number | boolean;
export type PropertyValue = string | number | boolean | string[] | Record<string, string>;

export interface ModuleResource {
  id: string;
  type: ResourceType;
  /** Line of the resource's first key. */
  line: number;
  properties: Record<string, PropertyValue>;
  requires: string[];
  notify: string[];
}

export interface ModuleDefinition {
  name: string;
  description: string;
  vars: Record<string, VarValue>;
  resources: ModuleResource[];
}

export type ParseModuleResult =
  | { ok: true; module: ModuleDefinition; /** Secret names referenced, sorted, each once. */ secrets: string[] }
  | { ok: false; errors: ModuleError[] };

export interface ParseModuleOptions {
  /**
   * Whether a secret of this name exists. Without it secret references are only
   * checked for syntax (the editor may not know the store; the orchestrator always passes it).
   */
  secretExists?: (name: string) => boolean;
  /** Defaults to MAX_MODULE_BYTES (2 MiB). */
  maxBytes?: number;
}

/** `line 14, resource "nginx-conf": unknown property "contnet" (did you mean "content"?)` */
export function formatModuleError(e: ModuleError): string {
  return `line ${e.line}${e.resource !== undefined ? `, resource "${e.resource}"` : ''}: ${e.message}`;
}

const NAME = new RegExp(MODULE_NAME_PATTERN);
const RESOURCE_ID = new RegExp(RESOURCE_ID_PATTERN);
const VAR_NAME = new RegExp(VAR_NAME_PATTERN);
const PACKAGE_VERSION = /^[A-Za-z0-9][A-Za-z0-9.+:~_-]{0,127}$/;
const MODE = /^0?[0-7]{3,4}$/;

function describe(node: unknown): string {
  if (node === null || node === undefined) return 'empty';
  if (isMap(node)) return 'a map';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'empty';
    if (typeof v === 'string') return 'a string';
    if (typeof v === 'number') return 'a number';
    if (typeof v === 'boolean') return 'a boolean';
  }
  return 'something else';
}

class Checker {
  readonly errors: ModuleError[] = [];
  private readonly lines = new LineCounter();
  readonly secrets = new Set<string>();
  /** Every `{{ vars.x }}` seen, checked against `vars` once all are known. */
  private readonly varRefs: { name: string; line: number; resource?: string; field: string }[] = [];

  constructor(
    private readonly text: string,
    private readonly options: ParseModuleOptions,
  ) {}

  lineAt(offset: number): number {
    return this.lines.linePos(Math.max(0, Math.min(offset, this.text.length))).line;
  }

  lineOf(node: unknown, fallback = 1): number {
    const range = (node as Node | null | undefined)?.range;
    return range ? this.lineAt(range[0]) : fallback;
  }

  error(line: number, message: string, resource?: string, field?: string): void {
    this.errors.push({ line, ...(resource !== undefined ? { resource } : {}), ...(field !== undefined ? { field } : {}), message });
  }

  raw(node: Node): string {
    const range = node.range;
    return range ? this.text.slice(range[0], range[1]).trim() : String((node as Scalar).value);
  }

  run(): ParseModuleResult {
    const bytes = new TextEncoder().encode(this.text).length;
    const max = this.options.maxBytes ?? MAX_MODULE_BYTES;
    if (bytes > max) return { ok: false, errors: [{ line: 1, message: `the module is ${bytes} bytes; at most ${max} are allowed` }] };

    const doc = parseDocument(this.text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true, version: '1.2' });
    for (const e of doc.errors) this.error(this.lineAt(e.pos[0]), `YAML: ${e.message.split('\n')[0]}`);
    if (this.errors.length) return { ok: false, errors: this.errors };
    const root = doc.contents;
    if (!isMap(root)) {
      this.error(this.lineOf(root), `a module is a map with name, description, vars and resources; this is ${describe(root)}`);
      return { ok: false, errors: this.errors };
    }
    if (!this.noAliases(root)) return { ok: false, errors: this.errors };

    const top = this.keys(root, TOP_LEVEL_KEYS, 'top-level key', undefined);
    const name = this.moduleName(top.get('name'), root);
    const description = this.optionalString(top.get('description'), 'description');
    const vars = this.vars(top.get('vars'));
    const resources = this.resources(top.get('resources'), root);

    for (const ref of this.varRefs) {
      if (!(ref.name in vars)) {
        const hint = closest(ref.name, Object.keys(vars));
        this.error(ref.line, `template uses vars.${ref.name}, which is not declared under vars${hint ? ` (did you mean "${hint}"?)` : ''}`, ref.resource, ref.field);
      }
    }
    this.errors.sort((a, b) => a.line - b.line);
    if (this.errors.length || name === undefined) return { ok: false, errors: this.errors };
    return { ok: true, module: { name, description: description ?? '', vars, resources }, secrets: [...this.secrets].sort() };
  }

  /** Anchors and aliases are refused: a module is read top to bottom, and aliases can multiply a small text into a huge one. */
  private noAliases(node: unknown): boolean {
    if (isAlias(node)) {
      this.error(this.lineOf(node), 'YAML aliases (*name) are not supported in modules; write the value out');
      return false;
    }
    if (isMap(node) || isSeq(node)) {
      let ok = true;
      for (const item of node.items) {
        if (isPair(item)) ok = this.noAliases(item.key) && this.noAliases(item.value) && ok;
        else ok = this.noAliases(item) && ok;
      }
      return ok;
    }
    return true;
  }

  /** Reads a map's keys; unknown ones are errors with a did-you-mean. */
  private keys(map: YAMLMap, allowed: readonly string[], what: string, resource: string | undefined): Map<string, { key: Node; value: Node | null }> {
    const out = new Map<string, { key: Node; value: Node | null }>();
    for (const pair of map.items) {
      const keyNode = pair.key as Node;
      const key = isScalar(keyNode) ? String(keyNode.value) : undefined;
      if (key === undefined) {
        this.error(this.lineOf(keyNode, this.lineOf(map)), `keys must be plain names, not lists or maps`, resource);
        continue;
      }
      if (!allowed.includes(key)) {
        const hint = closest(key, allowed);
        this.error(this.lineOf(keyNode), `unknown ${what} "${key}"${hint ? ` (did you mean "${hint}"?)` : ` (allowed: ${allowed.join(', ')})`}`, resource, key);
        continue;
      }
      out.set(key, { key: keyNode, value: (pair.value as Node | null) ?? null });
    }
    return out;
  }

  private moduleName(entry: { key: Node; value: Node | null } | undefined, root: YAMLMap): string | undefined {
    if (!entry) {
      this.error(this.lineOf(root), 'missing "name"', undefined, 'name');
      return undefined;
    }
    const v = entry.value;
    if (!isScalar(v) || typeof v.value !== 'string') {
      this.error(this.lineOf(v, this.lineOf(entry.key)), `name must be a string; it is ${describe(v)}`, undefined, 'name');
      return undefined;
    }
    if (!NAME.test(v.value)) {
      this.error(
        this.lineOf(v),
        `name "${v.value}" is not allowed: 1 to 63 characters, lower-case letters, digits, ".", "_" and "-", starting with a letter or digit (so no "/" and no "../")`,
        undefined,
        'name',
      );
      return undefined;
    }
    return v.value;
  }

  private optionalString(entry: { key: Node; value: Node | null } | undefined, field: string): string | undefined {
    if (!entry) return undefined;
    const v = entry.value;
    if (isScalar(v) && v.value === null) return '';
    if (!isScalar(v) || typeof v.value !== 'string') {
      this.error(this.lineOf(v, this.lineOf(entry.key)), `${field} must be a string; it is ${describe(v)}`, undefined, field);
      return undefined;
    }
    return v.value;
  }

  private vars(entry: { key: Node; value: Node | null } | undefined): Record<string, VarValue> {
    const out: Record<string, VarValue> = {};
    if (!entry || (isScalar(entry.value) && entry.value.value === null)) return out;
    const map = entry.value;
    if (!isMap(map)) {
      this.error(this.lineOf(map, this.lineOf(entry.key)), `vars must be a map of name: value; it is ${describe(map)}`, undefined, 'vars');
      return out;
    }
    for (const pair of map.items) {
      const key = pair.key as Node;
      const name = isScalar(key) ? String(key.value) : '';
      if (!VAR_NAME.test(name)) {
        this.error(this.lineOf(key), `var name "${name}" must match ${VAR_NAME_PATTERN}`, undefined, `vars.${name}`);
        continue;
      }
      const value = pair.value as Node | null;
      if (!isScalar(value) || !['string', 'number', 'boolean'].includes(typeof value.value)) {
        this.error(this.lineOf(value, this.lineOf(key)), `vars.${name} must be a string, number or boolean; it is ${describe(value)}`, undefined, `vars.${name}`);
        continue;
      }
      out[name] = value.value as VarValue;
    }
    return out;
  }

  private resources(entry: { key: Node; value: Node | null } | undefined, root: YAMLMap): ModuleResource[] {
    if (!entry) {
      this.error(this.lineOf(root), 'missing "resources" (a list of resources)', undefined, 'resources');
      return [];
    }
    const seq = entry.value;
    if (!isSeq(seq)) {
      this.error(this.lineOf(seq, this.lineOf(entry.key)), `resources must be a list; it is ${describe(seq)}`, undefined, 'resources');
      return [];
    }
    if (seq.items.length === 0) {
      this.error(this.lineOf(entry.key), 'resources is empty; a module needs at least one resource', undefined, 'resources');
      return [];
    }
    if (seq.items.length > MAX_RESOURCES) {
      this.error(this.lineOf(entry.key), `${seq.items.length} resources; at most ${MAX_RESOURCES} are allowed`, undefined, 'resources');
      return [];
    }
    const out: ModuleResource[] = [];
    const refs: { resource: ModuleResource; field: 'requires' | 'notify'; target: string; line: number }[] = [];
    const byId = new Map<string, ModuleResource>();
    seq.items.forEach((item, index) => {
      const r = this.resource(item as Node, index, refs);
      if (!r) return;
      const seen = byId.get(r.id);
      if (seen) {
        this.error(r.line, `duplicate id "${r.id}" (first used on line ${seen.line})`, r.id, 'id');
        return;
      }
      byId.set(r.id, r);
      out.push(r);
    });

    // Ids of resources refused for other reasons (an unknown type, say) still resolve, so one
    // mistake is not reported again at every reference to it.
    const declared = new Set(
      seq.items.flatMap((item) => {
        const id = isMap(item) ? item.items.find((p) => isScalar(p.key) && p.key.value === 'id')?.value : undefined;
        return isScalar(id) && typeof id.value === 'string' ? [id.value] : [];
      }),
    );
    for (const ref of refs) {
      const target = byId.get(ref.target);
      if (!target && declared.has(ref.target)) continue;
      if (!target) {
        const hint = closest(ref.target, [...byId.keys()]);
        this.error(ref.line, `${ref.field} "${ref.target}": no resource has this id${hint ? ` (did you mean "${hint}"?)` : ''}`, ref.resource.id, ref.field);
      } else if (ref.field === 'notify') {
        if (target === ref.resource) this.error(ref.line, 'a resource cannot notify itself', ref.resource.id, 'notify');
        else if (!NOTIFIABLE_TYPES.includes(target.type)) {
          this.error(ref.line, `notify "${ref.target}": only a service (restarted) or a script (re-run) can be notified; it is a ${target.type}`, ref.resource.id, 'notify');
        }
      }
    }
    this.cycles(out, byId, refs);
    return out;
  }

  /** Each cycle in `requires` once, named in order: a -> b -> a. */
  private cycles(resources: ModuleResource[], byId: Map<string, ModuleResource>, refs: { resource: ModuleResource; field: string; target: string; line: number }[]): void {
    const state = new Map<string, 'visiting' | 'done'>();
    const stack: string[] = [];
    const reported = new Set<string>();
    const visit = (id: string): void => {
      state.set(id, 'visiting');
      stack.push(id);
      for (const next of byId.get(id)!.requires) {
        if (!byId.has(next)) continue;
        const s = state.get(next);
        if (s === 'visiting') {
          const cycle = stack.slice(stack.indexOf(next));
          const signature = [...cycle].sort().join('\0');
          if (!reported.has(signature)) {
            reported.add(signature);
            const first = byId.get(cycle[0]!)!;
            const closing = cycle.length > 1 ? cycle[1]! : cycle[0]!;
            const line = refs.find((r) => r.resource === first && r.field === 'requires' && r.target === closing)?.line ?? first.line;
            this.error(line, `requires form a cycle: ${[...cycle, next].join(' -> ')}`, first.id, 'requires');
          }
        } else if (s === undefined) visit(next);
      }
      stack.pop();
      state.set(id, 'done');
    };
    for (const r of resources) if (!state.has(r.id)) visit(r.id);
  }

  private resource(
    node: Node,
    index: number,
    refs: { resource: ModuleResource; field: 'requires' | 'notify'; target: string; line: number }[],
  ): ModuleResource | undefined {
    const line = this.lineOf(node);
    if (!isMap(node)) {
      this.error(line, `resources[${index}] must be a map with id, type and properties; it is ${describe(node)}`, undefined, `resources[${index}]`);
      return undefined;
    }
    const idNode = node.items.find((p) => isScalar(p.key) && p.key.value === 'id')?.value as Node | undefined;
    let id: string | undefined;
    if (!idNode) this.error(line, `resources[${index}] has no "id"`, undefined, `resources[${index}].id`);
    else if (!isScalar(idNode) || typeof idNode.value !== 'string' || !RESOURCE_ID.test(idNode.value)) {
      this.error(this.lineOf(idNode, line), `resources[${index}]: id must match ${RESOURCE_ID_PATTERN}`, undefined, `resources[${index}].id`);
    } else id = idNode.value;

    const typeNode = node.items.find((p) => isScalar(p.key) && p.key.value === 'type')?.value as Node | undefined;
    let type: ResourceType | undefined;
    if (!typeNode) this.error(line, `missing "type" (one of ${RESOURCE_TYPES.join(', ')})`, id, 'type');
    else {
      const t = isScalar(typeNode) ? String(typeNode.value) : '';
      if ((RESOURCE_TYPES as readonly string[]).includes(t)) type = t as ResourceType;
      else {
        const hint = closest(t, RESOURCE_TYPES);
        this.error(this.lineOf(typeNode, line), `unknown type "${t}"${hint ? ` (did you mean "${hint}"?)` : ''}; types are ${RESOURCE_TYPES.join(', ')}`, id, 'type');
      }
    }
    if (type === undefined) return undefined;
    const specs = RESOURCE_PROPERTIES[type];
    const allowed = [...COMMON_RESOURCE_KEYS, ...Object.keys(specs)];
    const keys = this.keys(node, allowed, 'property', id);

    const properties: Record<string, PropertyValue> = {};
    for (const [key, spec] of Object.entries(specs)) {
      const entry = keys.get(key);
      if (!entry) {
        if (spec.required) this.error(line, `a ${type} needs "${key}" (${spec.description})`, id, key);
        continue;
      }
      const value = this.property(entry.value, entry.key, spec, id, key);
      if (value !== undefined) properties[key] = value;
    }
    if (id === undefined) return undefined;
    const resource: ModuleResource = { id, type, line, properties, requires: [], notify: [] };
    for (const field of ['requires', 'notify'] as const) {
      const entry = keys.get(field);
      if (!entry) continue;
      const list = this.idList(entry.value, entry.key, id, field);
      for (const item of list) {
        if (resource[field].includes(item.id)) this.error(item.line, `${field} lists "${item.id}" twice`, id, field);
        else {
          resource[field].push(item.id);
          refs.push({ resource, field, target: item.id, line: item.line });
        }
      }
    }
    this.typeRules(resource, keys);
    return resource;
  }

  /** Rules across properties of one resource. */
  private typeRules(r: ModuleResource, keys: Map<string, { key: Node }>): void {
    const p = r.properties;
    const at = (k: string): number => this.lineOf(keys.get(k)?.key, r.line);
    if (r.type === 'file') {
      if (p.content !== undefined && p.template !== undefined) this.error(at('template'), 'give either content or template, not both', r.id, 'template');
      if (p.ensure === 'absent') {
        for (const k of ['content', 'template', 'mode', 'owner', 'group']) {
          if (p[k] !== undefined) this.error(at(k), `"${k}" makes no sense with ensure: absent`, r.id, k);
        }
      }
    }
    if (r.type === 'symlink' && p.ensure !== 'absent' && p.target === undefined) this.error(r.line, 'a symlink needs "target" unless ensure is absent', r.id, 'target');
  }

  private idList(value: Node | null, key: Node, resource: string, field: string): { id: string; line: number }[] {
    if (!isSeq(value)) {
      this.error(this.lineOf(value, this.lineOf(key)), `${field} must be a list of resource ids, e.g. ${field}: [other-id]`, resource, field);
      return [];
    }
    const out: { id: string; line: number }[] = [];
    for (const item of value.items) {
      if (!isScalar(item) || typeof item.value !== 'string') this.error(this.lineOf(item, this.lineOf(key)), `${field} entries must be resource ids`, resource, field);
      else out.push({ id: item.value, line: this.lineOf(item) });
    }
    return out;
  }

  /** Checks one property's value; records template references; returns the value to keep. */
  private property(value: Node | null, key: Node, spec: PropertySpec, resource: string | undefined, field: string): PropertyValue | undefined {
    const line = this.lineOf(value, this.lineOf(key));
    const t = spec.type;
    const bad = (expected: string): undefined => {
      this.error(line, `${field} must be ${expected}; it is ${describe(value)}`, resource, field);
      return undefined;
    };
    const scalar = isScalar(value) ? value.value : undefined;
    switch (t.kind) {
      case 'string':
      case 'path': {
        if (typeof scalar !== 'string') return bad(t.kind === 'path' ? 'an absolute path' : 'a string');
        if (scalar === '' && !(t.kind === 'string' && t.allowEmpty)) return bad('a non-empty string');
        if (t.kind === 'path' && !scalar.startsWith('/') && !scalar.startsWith('{{')) {
          this.error(line, `${field} must be an absolute path (starting with "/"): "${scalar}"`, resource, field);
          return undefined;
        }
        if (!(t.kind === 'string' && t.literal)) this.templates(scalar, value as Scalar, resource, field);
        return scalar;
      }
      case 'regex': {
        if (typeof scalar !== 'string' || scalar === '') return bad('a regular expression');
        try {
          new RegExp(scalar);
        } catch (err) {
          this.error(line, `${field} is not a valid regular expression: ${(err as Error).message}`, resource, field);
          return undefined;
        }
        return scalar;
      }
      case 'mode': {
        const raw = isScalar(value) && (typeof scalar === 'number' || typeof scalar === 'string') ? (typeof scalar === 'string' ? scalar : this.raw(value)) : '';
        if (!MODE.test(raw)) return bad('octal permissions such as "0644" or "0755"');
        return raw.padStart(4, '0');
      }
      case 'enum': {
        if (typeof scalar !== 'string' || !t.values.includes(scalar)) {
          const hint = typeof scalar === 'string' ? closest(scalar, t.values) : undefined;
          this.error(line, `${field} must be one of ${t.values.join(', ')}; got ${typeof scalar === 'string' ? `"${scalar}"` : describe(value)}${hint ? ` (did you mean "${hint}"?)` : ''}`, resource, field);
          return undefined;
        }
        return scalar;
      }
      case 'ensure-package': {
        const text = typeof scalar === 'string' ? scalar : typeof scalar === 'number' && isScalar(value) ? this.raw(value) : '';
        if (text === '' || !(['present', 'absent', 'latest'].includes(text) || PACKAGE_VERSION.test(text))) {
          return bad('present, absent, latest or a version such as "1.24.0-1"');
        }
        return text;
      }
      case 'bool':
        return typeof scalar === 'boolean' ? scalar : bad('true or false');
      case 'int':
        if (typeof scalar !== 'number' || !Number.isInteger(scalar) || scalar < t.min || scalar > t.max) return bad(`a whole number from ${t.min} to ${t.max}`);
        return scalar;
      case 'strings': {
        if (!isSeq(value)) return bad('a list of strings');
        const out: string[] = [];
        for (const item of value.items) {
          if (!isScalar(item) || typeof item.value !== 'string' || item.value === '') {
            this.error(this.lineOf(item, line), `${field} entries must be non-empty strings`, resource, field);
            continue;
          }
          this.templates(item.value, item, resource, field);
          out.push(item.value);
        }
        return out;
      }
      case 'env': {
        if (!isMap(value)) return bad('a map of NAME: value');
        const out: Record<string, string> = {};
        for (const pair of value.items) {
          const k = isScalar(pair.key) ? String(pair.key.value) : '';
          const v = pair.value as Node | null;
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
            this.error(this.lineOf(pair.key, line), `${field}: "${k}" is not a valid environment variable name`, resource, `${field}.${k}`);
            continue;
          }
          if (!isScalar(v) || !['string', 'number', 'boolean'].includes(typeof v.value)) {
            this.error(this.lineOf(v, line), `${field}.${k} must be a string, number or boolean`, resource, `${field}.${k}`);
            continue;
          }
          const s = typeof v.value === 'string' ? v.value : this.raw(v);
          this.templates(s, v, resource, `${field}.${k}`);
          out[k] = s;
        }
        return out;
      }
    }
  }

  /** Checks `{{ }}` syntax in a string, records vars and secrets used, and finds the line of each problem. */
  private templates(text: string, node: Scalar, resource: string | undefined, field: string): void {
    const scan = scanTemplate(text);
    const lineFor = (offset: number): number => {
      const start = this.lineOf(node);
      // In a block scalar (| or >) the text starts on the next line; count the lines before the offset.
      if (node.type === Scalar.BLOCK_LITERAL) return start + 1 + (text.slice(0, offset).match(/\n/g)?.length ?? 0);
      return start;
    };
    for (const e of scan.errors) this.error(lineFor(e.offset), e.message, resource, field);
    for (const ref of scan.references) {
      const line = lineFor(ref.offset);
      if (ref.namespace === 'vars') this.varRefs.push({ name: ref.key, line, ...(resource !== undefined ? { resource } : {}), field });
      if (ref.namespace === 'secrets') {
        this.secrets.add(ref.key);
        if (this.options.secretExists && !this.options.secretExists(ref.key)) {
          this.error(line, `unknown secret "${ref.key}": create it under Secrets before uploading a module that uses it`, resource, field);
        }
      }
    }
  }
}

/**
 * Parses and validates a module. On success: the module, and the secret names it
 * references. On failure: every error found, in line order, nothing partial.
 * The content hash is not computed here (hashing needs node:crypto or an async
 * WebCrypto call); the orchestrator hashes the exact text it stores.
 */
export function parseModule(text: string, options: ParseModuleOptions = {}): ParseModuleResult {
  return new Checker(text, options).run();
}
