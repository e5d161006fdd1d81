// The bench:apply workload: directories, files with distinct content and guarded scripts
// under one root, written out three ways: a Corral module, a Puppet manifest and an
// Ansible playbook that describe the same end state.
import { createHash } from 'node:crypto';

export interface Workload {
  root: string;
  dirs: string[];
  files: { path: string; dir: number; content: string }[];
  scripts: { name: string; dir: number; creates: string; run: string }[];
}

export interface WorkloadSize {
  dirs: number;
  files: number;
  scripts: number;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A few hundred bytes of content that differs from file to file. */
function fileContent(i: number, total: number, dir: string): string {
  const lines = [`# file ${pad(i, 3)} of ${total} in ${dir}, written by npm run bench:apply`];
  for (let l = 0; l < 5; l++) lines.push(`line ${l}: ${createHash('sha256').update(`${i}:${l}`).digest('hex')}`);
  return lines.join('\n') + '\n';
}

export function makeWorkload(root: string, size: WorkloadSize): Workload {
  const dirs = Array.from({ length: size.dirs }, (_, d) => `${root}/d${pad(d)}`);
  const files = Array.from({ length: size.files }, (_, i) => {
    const dir = i % size.dirs;
    return { path: `${dirs[dir]}/f${pad(i, 3)}.txt`, dir, content: fileContent(i, size.files, `d${pad(dir)}`) };
  });
  const scripts = Array.from({ length: size.scripts }, (_, s) => {
    const dir = s % size.dirs;
    const creates = `${dirs[dir]}/script-${s}.done`;
    return { name: `script-${s}`, dir, creates, run: `echo ran > ${creates}` };
  });
  return { root, dirs, files, scripts };
}

/** JSON strings are YAML double-quoted scalars. */
const q = (s: string) => JSON.stringify(s);

export function corralModule(name: string, w: Workload): string {
  const out = [`name: ${name}`, `description: bench:apply, ${w.dirs.length} directories, ${w.files.length} files, ${w.scripts.length} scripts`, 'resources:'];
  w.dirs.forEach((dir, d) => out.push(`  - id: d${pad(d)}`, '    type: directory', `    path: ${q(dir)}`, '    mode: "0755"'));
  w.files.forEach((f, i) =>
    out.push(`  - id: f${pad(i, 3)}`, '    type: file', `    path: ${q(f.path)}`, '    mode: "0644"', `    content: ${q(f.content)}`, `    requires: [d${pad(f.dir)}]`),
  );
  for (const s of w.scripts) out.push(`  - id: ${s.name}`, '    type: script', `    run: ${q(s.run)}`, `    creates: ${q(s.creates)}`, `    requires: [d${pad(s.dir)}]`);
  return out.join('\n') + '\n';
}

/** Puppet single-quoted strings: only \\ and \' are escapes. */
const pq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export function puppetManifest(w: Workload): string {
  const out: string[] = [];
  for (const dir of w.dirs) out.push(`file { ${pq(dir)}: ensure => directory, mode => '0755' }`);
  // Puppet requires a file's parent directory by itself (autorequire).
  for (const f of w.files) out.push(`file { ${pq(f.path)}: ensure => file, mode => '0644', content => ${pq(f.content)} }`);
  for (const s of w.scripts) out.push(`exec { ${pq(s.name)}: command => ${pq(s.run)}, creates => ${pq(s.creates)}, provider => shell, require => File[${pq(w.dirs[s.dir]!)}] }`);
  return out.join('\n') + '\n';
}

/** One task per kind of resource, looping over the items: ansible's usual way to write this. */
export function ansiblePlaybook(w: Workload): string {
  const out = [
    '- hosts: localhost',
    '  connection: local',
    '  gather_facts: false',
    '  vars:',
    '    bench_dirs:',
    ...w.dirs.map((d) => `      - ${q(d)}`),
    '    bench_files:',
    ...w.files.flatMap((f) => [`      - path: ${q(f.path)}`, `        content: ${q(f.content)}`]),
    '    bench_scripts:',
    ...w.scripts.flatMap((s) => [`      - run: ${q(s.run)}`, `        creates: ${q(s.creates)}`]),
    '  tasks:',
    '    - name: directories',
    '      ansible.builtin.file: { path: "{{ item }}", state: directory, mode: "0755" }',
    '      loop: "{{ bench_dirs }}"',
    '    - name: files',
    '      ansible.builtin.copy: { dest: "{{ item.path }}", content: "{{ item.content }}", mode: "0644" }',
    '      loop: "{{ bench_files }}"',
    '      loop_control: { label: "{{ item.path }}" }',
    '    - name: scripts',
    '      ansible.builtin.shell: { cmd: "{{ item.run }}", creates: "{{ item.creates }}" }',
    '      loop: "{{ bench_scripts }}"',
  ];
  return out.join('\n') + '\n';
}
