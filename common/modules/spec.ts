// The module format's vocabulary: resource types, their properties, and the
// template syntax. Browser-safe (the renderer's editor validates with it too).
// docs/modules.md is the prose version of this file; keep them in step.

export const MODULE_NAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,62}$';
export const RESOURCE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$';
export const VAR_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
/** A module's text is at most 2 MiB (DESIGN.md, limits). */
export const MAX_MODULE_BYTES = 2 * 1024 * 1024;
export const MAX_RESOURCES = 10_000;
export const MAX_SCRIPT_TIMEOUT_S = 86_400;

export const RESOURCE_TYPES = ['file', 'directory', 'symlink', 'line', 'package', 'service', 'user', 'group', 'script'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** Types a `notify` may point at: a service restarts, a script re-runs. */
export const NOTIFIABLE_TYPES: readonly ResourceType[] = ['service', 'script'];

export const PACKAGE_MANAGERS = ['apt', 'dnf', 'yum', 'apk', 'pacman', 'brew'] as const;
export const SERVICE_MANAGERS = ['systemd', 'openrc'] as const;

/**
 * How a property's value is checked:
 * - string: any non-empty string (templates allowed unless `literal`)
 * - path: an absolute path (templates allowed)
 * - mode: octal permissions, "0644" or 0644 as written
 * - enum: one of `values`
 * - bool, int (with min/max), strings (list of strings), env (map of string to scalar)
 */
export type PropertyKind =
  | { kind: 'string'; literal?: boolean; allowEmpty?: boolean }
  | { kind: 'path' }
  | { kind: 'mode' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'bool' }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'strings' }
  | { kind: 'env' }
  | { kind: 'regex' }
  | { kind: 'ensure-package' };

export interface PropertySpec {
  type: PropertyKind;
  required?: boolean;
  description: string;
}

const ENSURE: PropertySpec = { type: { kind: 'enum', values: ['present', 'absent'] }, description: 'present (default) or absent' };
const MODE: PropertySpec = { type: { kind: 'mode' }, description: 'octal permissions, e.g. "0644"' };
const OWNER: PropertySpec = { type: { kind: 'string' }, description: 'owning user name' };
const GROUP: PropertySpec = { type: { kind: 'string' }, description: 'owning group name' };
const PATH: PropertySpec = { type: { kind: 'path' }, required: true, description: 'absolute path' };

export const RESOURCE_PROPERTIES: Record<ResourceType, Record<string, PropertySpec>> = {
  file: {
    path: PATH,
    content: { type: { kind: 'string', literal: true, allowEmpty: true }, description: 'the exact contents, written as is ({{ }} is not expanded)' },
    template: { type: { kind: 'string', allowEmpty: true }, description: 'the contents with {{ }} expanded at apply time' },
    mode: MODE,
    owner: OWNER,
    group: GROUP,
    ensure: ENSURE,
  },
  directory: {
    path: PATH,
    mode: MODE,
    owner: OWNER,
    group: GROUP,
    ensure: ENSURE,
    recurse: { type: { kind: 'bool' }, description: 'owner and group of everything below and the mode of subdirectories (files keep theirs; links are not followed); with ensure absent, remove a non-empty directory' },
  },
  symlink: {
    path: PATH,
    target: { type: { kind: 'string' }, description: 'what the link points to (required unless ensure is absent)' },
    ensure: ENSURE,
  },
  line: {
    path: PATH,
    line: { type: { kind: 'string' }, required: true, description: 'the whole line, without the newline' },
    match: { type: { kind: 'regex' }, description: 'a regular expression; the first matching line is replaced (with ensure absent, every matching line is removed)' },
    ensure: ENSURE,
  },
  package: {
    name: { type: { kind: 'string' }, required: true, description: 'package name as the manager knows it' },
    ensure: { type: { kind: 'ensure-package' }, description: 'present (default), absent, latest, or an exact version' },
    manager: { type: { kind: 'enum', values: PACKAGE_MANAGERS }, description: 'force a package manager instead of detecting one' },
  },
  service: {
    name: { type: { kind: 'string' }, required: true, description: 'service (unit) name' },
    state: { type: { kind: 'enum', values: ['running', 'stopped'] }, description: 'running or stopped; left alone when not given' },
    enabled: { type: { kind: 'bool' }, description: 'started at boot; left alone when not given' },
    manager: { type: { kind: 'enum', values: SERVICE_MANAGERS }, description: 'force a service manager instead of detecting one' },
  },
  user: {
    name: { type: { kind: 'string' }, required: true, description: 'login name' },
    uid: { type: { kind: 'int', min: 0, max: 4_294_967_294 }, description: 'numeric user id' },
    gid: { type: { kind: 'string' }, description: 'primary group (name or number)' },
    groups: { type: { kind: 'strings' }, description: 'supplementary groups (exactly these)' },
    home: { type: { kind: 'path' }, description: 'home directory' },
    shell: { type: { kind: 'path' }, description: 'login shell' },
    system: { type: { kind: 'bool' }, description: 'a system account (only used when creating)' },
    ensure: ENSURE,
  },
  group: {
    name: { type: { kind: 'string' }, required: true, description: 'group name' },
    gid: { type: { kind: 'int', min: 0, max: 4_294_967_294 }, description: 'numeric group id' },
    system: { type: { kind: 'bool' }, description: 'a system group (only used when creating)' },
    ensure: ENSURE,
  },
  script: {
    run: { type: { kind: 'string' }, required: true, description: 'shell command run with /bin/sh -c' },
    check: { type: { kind: 'string' }, description: 'guard: run only if this command exits 0' },
    unless: { type: { kind: 'string' }, description: 'guard: skip if this command exits 0' },
    creates: { type: { kind: 'path' }, description: 'guard: skip if this path exists' },
    timeout: { type: { kind: 'int', min: 1, max: MAX_SCRIPT_TIMEOUT_S }, description: 'seconds before the script is killed (default 300)' },
    env: { type: { kind: 'env' }, description: 'extra environment variables' },
    cwd: { type: { kind: 'path' }, description: 'working directory (default /)' },
    user: { type: { kind: 'string' }, description: 'run as this user' },
  },
};

/** Keys every resource has, whatever its type. */
export const COMMON_RESOURCE_KEYS = ['id', 'type', 'requires', 'notify'] as const;
export const TOP_LEVEL_KEYS = ['name', 'description', 'vars', 'resources'] as const;

/** Template namespaces: where a `{{ ns.key }}` value comes from. */
export const TEMPLATE_NAMESPACES = ['vars', 'tags', 'attributes', 'secrets'] as const;
export type TemplateNamespace = (typeof TEMPLATE_NAMESPACES)[number];

const KEY_PATTERNS: Record<TemplateNamespace, RegExp> = {
  vars: new RegExp(VAR_NAME_PATTERN),
  tags: /^[a-z0-9][a-z0-9._/-]{0,62}$/,
  attributes: /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
  // The same as SECRET_NAME_PATTERN in common/schemas/secrets.ts.
  secrets: /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
};

export interface TemplateReference {
  namespace: TemplateNamespace;
  key: string;
  /** Offset of the `{{` in the string. */
  offset: number;
}

export interface TemplateScan {
  references: TemplateReference[];
  errors: { message: string; offset: number }[];
}

/**
 * Finds the `{{ ns.key }}` references in a string. The syntax is only that: no
 * filters, no expressions, no code. `{{` without `}}`, an unknown namespace or a
 * malformed key is an error; scanning goes on after a bad reference so every one is reported.
 */
export function scanTemplate(text: string): TemplateScan {
  const out: TemplateScan = { references: [], errors: [] };
  let from = 0;
  for (;;) {
    const open = text.indexOf('{{', from);
    if (open < 0) return out;
    const close = text.indexOf('}}', open + 2);
    if (close < 0) {
      out.errors.push({ message: 'template "{{" is never closed with "}}"', offset: open });
      return out;
    }
    from = close + 2;
    const inner = text.slice(open + 2, close).trim();
    const dot = inner.indexOf('.');
    const namespace = dot < 0 ? inner : inner.slice(0, dot);
    const key = dot < 0 ? '' : inner.slice(dot + 1);
    if (!(TEMPLATE_NAMESPACES as readonly string[]).includes(namespace)) {
      out.errors.push({
        message: `template "{{ ${inner} }}": expected {{ vars.NAME }}, {{ tags.KEY }}, {{ attributes.NAME }} or {{ secrets.NAME }}`,
        offset: open,
      });
      continue;
    }
    const ns = namespace as TemplateNamespace;
    if (!KEY_PATTERNS[ns].test(key)) {
      out.errors.push({ message: `template "{{ ${inner} }}": "${key}" is not a valid ${ns} name`, offset: open });
      continue;
    }
    out.references.push({ namespace: ns, key, offset: open });
  }
}

/** Edit distance where swapping two neighbours counts as one edit (optimal string alignment), for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= (word.length <= 3 ? 1 : 2) ? best : undefined;
}
