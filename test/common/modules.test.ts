import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  formatModuleError,
  MAX_MODULE_BYTES,
  parseModule,
  RESOURCE_PROPERTIES,
  RESOURCE_TYPES,
  scanTemplate,
  type ModuleError,
  type ParseModuleOptions,
} from '../../common/modules/index.js';

const SECRETS = new Set(['DB_PASSWORD', 'API_TOKEN']);
const opts: ParseModuleOptions = { secretExists: (n) => SECRETS.has(n) };

function ok(text: string, options = opts) {
  const r = parseModule(text, options);
  assert.ok(r.ok, r.ok ? '' : r.errors.map(formatModuleError).join('\n'));
  return r;
}

function errors(text: string, options = opts): ModuleError[] {
  const r = parseModule(text, options);
  assert.ok(!r.ok, 'expected the module to be refused');
  return r.errors;
}

/** Exactly one error, on `line`, in `resource`, matching `message`. */
function fails(text: string, line: number, resource: string | undefined, message: RegExp, field?: string): ModuleError {
  const errs = errors(text);
  assert.equal(errs.length, 1, errs.map(formatModuleError).join('\n'));
  const e = errs[0]!;
  assert.equal(e.line, line, formatModuleError(e));
  assert.equal(e.resource, resource, formatModuleError(e));
  assert.match(e.message, message);
  if (field !== undefined) assert.equal(e.field, field);
  return e;
}

/** A module around one resource given as YAML lines (indented four spaces under "- "). */
function one(resourceLines: string, head = 'name: m\n'): string {
  return `${head}resources:\n  - ${resourceLines.trim().split('\n').join('\n    ')}\n`;
}

describe('parseModule: good modules', () => {
  it('reads name, description, vars and ordered resources with their properties', () => {
    const r = ok(`name: web
description: A web server
vars:
  port: 8080
  site: example
  tls: true
resources:
  - id: pkg
    type: package
    name: nginx
  - id: conf
    type: file
    path: /etc/nginx/conf.d/{{ vars.site }}.conf
    mode: 0644
    template: "listen {{ vars.port }};"
    requires: [pkg]
    notify: [svc]
  - id: svc
    type: service
    name: nginx
    state: running
    enabled: true
    requires: [pkg]
`);
    assert.equal(r.module.name, 'web');
    assert.equal(r.module.description, 'A web server');
    assert.deepEqual(r.module.vars, { port: 8080, site: 'example', tls: true });
    assert.deepEqual(
      r.module.resources.map((x) => [x.id, x.type, x.line]),
      [
        ['pkg', 'package', 8],
        ['conf', 'file', 11],
        ['svc', 'service', 18],
      ],
    );
    const conf = r.module.resources[1]!;
    assert.equal(conf.properties.mode, '0644', 'an unquoted 0644 keeps its octal digits');
    assert.deepEqual(conf.requires, ['pkg']);
    assert.deepEqual(conf.notify, ['svc']);
    assert.deepEqual(r.secrets, []);
  });

  it('accepts every resource type with all its properties', () => {
    const r = ok(`name: all-types
vars:
  who: alice
resources:
  - {id: f, type: file, path: /etc/f, content: "literal {{ not a template", mode: "0600", owner: root, group: root, ensure: present}
  - {id: d, type: directory, path: /srv/d, mode: "0755", owner: root, group: root, ensure: present, recurse: true}
  - {id: s, type: symlink, path: /srv/link, target: /srv/d, ensure: present}
  - {id: l, type: line, path: /etc/hosts, line: "127.0.1.1 box", match: "^127\\\\.0\\\\.1\\\\.1", ensure: present}
  - {id: p, type: package, name: curl, ensure: latest, manager: apt}
  - {id: p2, type: package, name: jq, ensure: 1.6-2.1}
  - {id: p3, type: package, name: htop, ensure: absent}
  - {id: sv, type: service, name: cron, state: stopped, enabled: false, manager: systemd}
  - {id: u, type: user, name: "{{ vars.who }}", uid: 1500, gid: users, groups: [adm, sudo], home: /home/alice, shell: /bin/bash, system: false, ensure: present}
  - {id: g, type: group, name: ops, gid: 1600, system: true, ensure: present}
  - {id: sc, type: script, run: "echo hi", check: "true", unless: "false", creates: /tmp/x, timeout: 30, env: {A: "1", B: 2}, cwd: /tmp, user: nobody}
  - {id: gone, type: file, path: /etc/old, ensure: absent}
  - {id: nolink, type: symlink, path: /srv/old, ensure: absent}
`);
    assert.equal(r.module.resources.length, 13);
    assert.equal(r.module.resources.find((x) => x.id === 'p2')!.properties.ensure, '1.6-2.1');
    assert.deepEqual(r.module.resources.find((x) => x.id === 'sc')!.properties.env, { A: '1', B: '2' });
  });

  it('collects referenced secrets once, sorted', () => {
    const r = ok(
      one(`id: env
type: file
path: /etc/app.env
template: |
  DB={{ secrets.DB_PASSWORD }}
  TOKEN={{secrets.API_TOKEN}}
  AGAIN={{ secrets.DB_PASSWORD }}`),
    );
    assert.deepEqual(r.secrets, ['API_TOKEN', 'DB_PASSWORD']);
  });

  it('does not check secret existence without a secretExists callback (the editor)', () => {
    const r = ok(one('id: a\ntype: file\npath: /a\ntemplate: "{{ secrets.ANYTHING }}"'), {});
    assert.deepEqual(r.secrets, ['ANYTHING']);
  });

  it('allows tags and attributes in templates without declaring them', () => {
    ok(one('id: a\ntype: file\npath: /a\ntemplate: "{{ tags.role }} {{ tags.team/owner }} {{ attributes.hostname }}"'));
  });

  it('validates every file in resources/examples', () => {
    const dir = new URL('../../resources/examples/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    assert.ok(files.length >= 3, `only ${files.length} examples`);
    for (const f of files) {
      const r = parseModule(readFileSync(new URL(f, dir), 'utf8'), opts);
      assert.ok(r.ok, `${f}: ${r.ok ? '' : r.errors.map(formatModuleError).join('; ')}`);
    }
  });

  it('describes every type in RESOURCE_PROPERTIES', () => {
    assert.deepEqual(Object.keys(RESOURCE_PROPERTIES).sort(), [...RESOURCE_TYPES].sort());
  });
});

describe('parseModule: errors name the line, the resource and the field', () => {
  it('formats as "line N, resource "id": message"', () => {
    const e = fails(one('id: nginx-conf\ntype: file\npath: /etc/x\ncontnet: hi'), 6, 'nginx-conf', /unknown property "contnet" \(did you mean "content"\?\)/, 'contnet');
    assert.equal(formatModuleError(e), 'line 6, resource "nginx-conf": unknown property "contnet" (did you mean "content"?)');
  });

  it('YAML syntax errors carry the line', () => {
    fails('name: x\nresources:\n  - id: a\n    type: file\n   path: /x\n', 5, undefined, /^YAML: /);
    fails('name: x\nresources: [a, b\n', 3, undefined, /^YAML: /);
    fails('name: x\nname: y\nresources: []\n', 2, undefined, /YAML: .*unique/i);
    fails('name: x\n---\nname: y\n', 2, undefined, /YAML/);
  });

  it('refuses a document that is not a map, and YAML aliases', () => {
    fails('- a\n- b\n', 1, undefined, /a module is a map/);
    fails('', 1, undefined, /a module is a map/);
    fails('name: x\nresources:\n  - &r {id: a, type: directory, path: /a}\n  - *r\n', 4, undefined, /aliases/);
  });

  it('names unknown top-level keys with a hint', () => {
    assert.deepEqual(
      errors('name: m\nresorces: []\n').map(formatModuleError),
      ['line 1: missing "resources" (a list of resources)', 'line 2: unknown top-level key "resorces" (did you mean "resources"?)'],
    );
    const errs = errors('name: m\ndescripton: x\nresources:\n  - {id: a, type: directory, path: /a}\n');
    assert.equal(errs[0]!.line, 2);
    assert.match(errs[0]!.message, /unknown top-level key "descripton" \(did you mean "description"\?\)/);
  });

  it('checks the module name: pattern, no path traversal, not missing', () => {
    for (const bad of ['../x', '/etc', 'a/b', '.hidden', 'UPPER', 'x'.repeat(64), "''"]) {
      fails(`name: ${bad}\nresources:\n  - {id: a, type: directory, path: /a}\n`, 1, undefined, /name .* is not allowed|name must be/, 'name');
    }
    fails('name: 12\nresources:\n  - {id: a, type: directory, path: /a}\n', 1, undefined, /name must be a string/);
    fails('description: x\nresources:\n  - {id: a, type: directory, path: /a}\n', 1, undefined, /missing "name"/);
  });

  it('checks vars: a map of scalars with identifier names', () => {
    fails('name: m\nvars: [a]\nresources:\n  - {id: a, type: directory, path: /a}\n', 2, undefined, /vars must be a map/);
    fails('name: m\nvars:\n  ok: 1\n  bad-name: 2\nresources:\n  - {id: a, type: directory, path: /a}\n', 4, undefined, /var name "bad-name"/);
    fails('name: m\nvars:\n  nested: {a: 1}\nresources:\n  - {id: a, type: directory, path: /a}\n', 3, undefined, /vars.nested must be a string, number or boolean/);
  });

  it('checks resources: a non-empty list of maps with id and type', () => {
    fails('name: m\nresources: {}\n', 2, undefined, /resources must be a list/);
    fails('name: m\nresources: []\n', 2, undefined, /at least one resource/);
    fails('name: m\nresources:\n  - just a string\n', 3, undefined, /resources\[0\] must be a map/);
    fails('name: m\nresources:\n  - {type: directory, path: /a}\n', 3, undefined, /has no "id"/);
    fails('name: m\nresources:\n  - {id: "bad id!", type: directory, path: /a}\n', 3, undefined, /id must match/);
    fails('name: m\nresources:\n  - {id: a, path: /a}\n', 3, 'a', /missing "type"/);
  });

  it('refuses unknown types with a hint', () => {
    fails(one('id: a\ntype: serivce\nname: x'), 4, 'a', /unknown type "serivce" \(did you mean "service"\?\)/, 'type');
    fails(one('id: a\ntype: cron\nname: x'), 4, 'a', /unknown type "cron"; types are file, directory/);
    // References to the refused resource are not reported again.
    fails('name: m\nresources:\n  - {id: a, type: cron}\n  - {id: b, type: directory, path: /b, requires: [a]}\n', 3, 'a', /unknown type "cron"/);
  });

  it('refuses duplicate ids, naming the first use', () => {
    fails('name: m\nresources:\n  - {id: a, type: directory, path: /a}\n  - {id: b, type: directory, path: /b}\n  - {id: a, type: directory, path: /c}\n', 5, 'a', /duplicate id "a" \(first used on line 3\)/);
  });

  it('requires the required properties per type', () => {
    fails(one('id: a\ntype: file'), 3, 'a', /a file needs "path"/, 'path');
    fails(one('id: a\ntype: line\npath: /etc/x'), 3, 'a', /a line needs "line"/);
    fails(one('id: a\ntype: package'), 3, 'a', /a package needs "name"/);
    fails(one('id: a\ntype: script'), 3, 'a', /a script needs "run"/);
    fails(one('id: a\ntype: symlink\npath: /x'), 3, 'a', /needs "target" unless ensure is absent/);
  });

  it('checks property values', () => {
    fails(one('id: a\ntype: file\npath: etc/x'), 5, 'a', /absolute path/);
    fails(one('id: a\ntype: file\npath: /x\nmode: 999'), 6, 'a', /octal permissions/);
    fails(one('id: a\ntype: file\npath: /x\nmode: rw-r--r--'), 6, 'a', /octal permissions/);
    fails(one('id: a\ntype: file\npath: /x\nensure: gone'), 6, 'a', /ensure must be one of present, absent/);
    fails(one('id: a\ntype: file\npath: /x\ncontent: a\ntemplate: b'), 7, 'a', /either content or template/);
    fails(one('id: a\ntype: file\npath: /x\nensure: absent\ncontent: a'), 7, 'a', /"content" makes no sense with ensure: absent/);
    fails(one('id: a\ntype: directory\npath: /x\nrecurse: yes'), 6, 'a', /recurse must be true or false/);
    fails(one('id: a\ntype: service\nname: x\nstate: runing'), 6, 'a', /state must be one of running, stopped; got "runing" \(did you mean "running"\?\)/);
    fails(one('id: a\ntype: service\nname: x\nmanager: upstart'), 6, 'a', /manager must be one of systemd, openrc/);
    fails(one('id: a\ntype: package\nname: x\nensure: "not a version!"'), 6, 'a', /present, absent, latest or a version/);
    fails(one('id: a\ntype: user\nname: x\nuid: -1'), 6, 'a', /uid must be a whole number/);
    fails(one('id: a\ntype: user\nname: x\ngroups: adm'), 6, 'a', /groups must be a list of strings/);
    fails(one('id: a\ntype: script\nrun: x\ntimeout: 0'), 6, 'a', /timeout must be a whole number from 1/);
    fails(one('id: a\ntype: script\nrun: x\nenv: {"1BAD": x}'), 6, 'a', /not a valid environment variable name/);
    fails(one('id: a\ntype: script\nrun: ""'), 5, 'a', /run must be a non-empty string/);
    fails(one('id: a\ntype: line\npath: /x\nline: y\nmatch: "("'), 7, 'a', /not a valid regular expression/);
  });

  it('resolves requires and notify, and only notifies services and scripts', () => {
    const base = 'name: m\nresources:\n  - {id: svc, type: service, name: s}\n  - {id: dir, type: directory, path: /d}\n';
    fails(base + '  - {id: f, type: file, path: /f, requires: [dri]}\n', 5, 'f', /requires "dri": no resource has this id \(did you mean "dir"\?\)/, 'requires');
    fails(base + '  - {id: f, type: file, path: /f, notify: [nope]}\n', 5, 'f', /notify "nope": no resource has this id/);
    fails(base + '  - {id: f, type: file, path: /f, notify: [dir]}\n', 5, 'f', /only a service .* or a script .* can be notified; it is a directory/);
    fails(base + '  - {id: f, type: file, path: /f, requires: dir}\n', 5, 'f', /requires must be a list/);
    fails(base + '  - {id: f, type: file, path: /f, requires: [dir, dir]}\n', 5, 'f', /lists "dir" twice/);
    fails('name: m\nresources:\n  - {id: s, type: script, run: x, notify: [s]}\n', 3, 's', /cannot notify itself/);
    ok(base + '  - {id: f, type: file, path: /f, requires: [dir], notify: [svc]}\n');
  });

  it('names cycles in requires, each once', () => {
    fails(
      'name: m\nresources:\n  - id: a\n    type: directory\n    path: /a\n    requires: [b]\n  - id: b\n    type: directory\n    path: /b\n    requires: [a]\n',
      6,
      'a',
      /requires form a cycle: a -> b -> a/,
    );
    fails('name: m\nresources:\n  - {id: a, type: directory, path: /a, requires: [a]}\n', 3, 'a', /cycle: a -> a/);
    const errs = errors(
      'name: m\nresources:\n  - {id: a, type: directory, path: /a, requires: [b]}\n  - {id: b, type: directory, path: /b, requires: [c]}\n  - {id: c, type: directory, path: /c, requires: [a]}\n  - {id: x, type: directory, path: /x, requires: [y]}\n  - {id: y, type: directory, path: /y, requires: [x]}\n',
    );
    assert.deepEqual(
      errs.map((e) => e.message),
      ['requires form a cycle: a -> b -> c -> a', 'requires form a cycle: x -> y -> x'],
    );
  });

  it('checks templates: syntax, namespaces, declared vars, known secrets', () => {
    fails(one('id: a\ntype: file\npath: /a\ntemplate: "{{ vars.x"', 'name: m\nvars: {x: 1}\n'), 7, 'a', /never closed/);
    fails(one('id: a\ntype: file\npath: /a\ntemplate: "{{ env.HOME }}"'), 6, 'a', /expected \{\{ vars.NAME \}\}/);
    fails(one('id: a\ntype: file\npath: /a\ntemplate: "{{ vars.bad-name }}"'), 6, 'a', /not a valid vars name/);
    fails(one('id: a\ntype: file\npath: /a\ntemplate: "{{ vars.prot }}"', 'name: m\nvars: {port: 80}\n'), 7, 'a', /vars.prot, which is not declared under vars \(did you mean "port"\?\)/);
    fails(one('id: a\ntype: file\npath: /a\ntemplate: "{{ secrets.NOPE }}"'), 6, 'a', /unknown secret "NOPE"/);
    fails(one('id: a\ntype: script\nrun: "echo {{ vars.missing }}"'), 5, 'a', /vars.missing/);
    fails(one('id: a\ntype: script\nrun: x\nenv: {X: "{{ secrets.NOPE }}"}'), 6, 'a', /unknown secret/, 'env.X');
    fails(one('id: a\ntype: user\nname: u\ngroups: ["{{ vars.g }}"]'), 6, 'a', /vars.g/);
    // content is literal: braces are not templates there.
    ok(one('id: a\ntype: file\npath: /a\ncontent: "{{ whatever"'));
  });

  it('points at the line inside a block scalar', () => {
    const text = one('id: a\ntype: file\npath: /a\ntemplate: |\n  one\n  two {{ secrets.NOPE }}\n  three');
    // name(1) resources(2) id(3) type(4) path(5) template(6) one(7) two(8)
    fails(text, 8, 'a', /unknown secret "NOPE"/);
  });

  it('reports every error at once, in line order', () => {
    const errs = errors(`name: m
resources:
  - id: a
    type: fiel
  - id: b
    type: file
    path: /b
    contnet: x
    requires: [zz]
`);
    assert.deepEqual(
      errs.map((e) => [e.line, e.resource]),
      [
        [4, 'a'],
        [8, 'b'],
        [9, 'b'],
      ],
    );
  });

  it('refuses a text over the size limit before parsing', () => {
    const big = `name: big\nresources:\n  - {id: a, type: file, path: /a, content: "${'x'.repeat(MAX_MODULE_BYTES)}"}\n`;
    fails(big, 1, undefined, /bytes; at most 2097152/);
    fails('name: m\n', 1, undefined, /at most 4 are allowed/);
    function fails(text: string, line: number, resource: undefined, message: RegExp): void {
      const r = parseModule(text, { maxBytes: text === 'name: m\n' ? 4 : MAX_MODULE_BYTES });
      assert.ok(!r.ok);
      assert.equal(r.errors.length, 1);
      assert.equal(r.errors[0]!.line, line);
      assert.equal(r.errors[0]!.resource, resource);
      assert.match(r.errors[0]!.message, message);
    }
  });
});

describe('scanTemplate', () => {
  it('finds references and reports every bad one', () => {
    const s = scanTemplate('a {{ vars.x }} b {{tags.role}} {{ nope.y }} {{ secrets.S }}');
    assert.deepEqual(
      s.references.map((r) => `${r.namespace}.${r.key}`),
      ['vars.x', 'tags.role', 'secrets.S'],
    );
    assert.equal(s.errors.length, 1);
    assert.equal(s.errors[0]!.offset, 31);
    assert.deepEqual(scanTemplate('no templates').references, []);
    assert.equal(scanTemplate('{{ vars.x ').errors.length, 1);
  });
});
