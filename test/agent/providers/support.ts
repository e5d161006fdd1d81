// Temp roots, contexts and a file-system snapshot for the provider tests.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { ProviderContext } from '../../../agent/providers/index.js';

export interface TempRoot {
  dir: string;
  ctx: ProviderContext;
  /** The real path of a resource path under the root. */
  real(p: string): string;
  cleanup(): void;
}

export function tempRoot(): TempRoot {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'corral-providers-'));
  const ctx = new ProviderContext({ root: dir, logger: pino({ level: 'silent' }) });
  return { dir, ctx, real: (p) => path.join(dir, p), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const isRoot = process.getuid?.() === 0;

/** Every path under dir with kind, mode, owner, size, mtime, contents or link target. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string): void => {
    const st = lstatSync(p, { bigint: true });
    const rel = path.relative(dir, p) || '.';
    let extra = '';
    if (st.isSymbolicLink()) extra = `-> ${readlinkSync(p)}`;
    else if (st.isFile()) extra = readFileSync(p, 'utf8');
    out[rel] = JSON.stringify([st.mode.toString(8), st.uid.toString(), st.gid.toString(), st.size.toString(), st.mtimeNs.toString(), st.ctimeNs.toString(), extra]);
    if (st.isDirectory()) for (const e of readdirSync(p).sort()) walk(path.join(p, e));
  };
  walk(dir);
  return out;
}

/** A minimal /etc account database under the temp root, for the user and group providers. */
export function fakeEtc(t: TempRoot): void {
  mkdirSync(t.real('/etc'), { recursive: true });
  writeFileSync(t.real('/etc/group'), 'root:x:0:\nusers:x:100:\nweb:x:3000:\nadm:x:4:\n');
  writeFileSync(t.real('/etc/gshadow'), 'root:*::\nusers:*::\nweb:*::\nadm:*::\n', { mode: 0o640 });
  writeFileSync(t.real('/etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  writeFileSync(t.real('/etc/shadow'), 'root:*:19000:0:99999:7:::\n', { mode: 0o640 });
}
