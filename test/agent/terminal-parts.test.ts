// The pieces behind agent terminals, without a pty: UTF-8 chunking, the term_* message
// checks, and the passwd/shells lookups (against fixture files).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parseServerMessage } from '../../agent/link/messages.js';
import { checkShell, lookupUser, resolveAccount, shellEnvironment, TerminalRefused, type AccountFiles } from '../../agent/terminal/accounts.js';
import { completeUtf8Length, splitUtf8 } from '../../agent/terminal/utf8.js';
import { removeDir, tempDir } from './support/temp.js';

const dir = tempDir();
after(() => removeDir(dir));

describe('UTF-8 chunking', () => {
  it('holds back only an unfinished character at the end', () => {
    const euro = Buffer.from('€'); // e2 82 ac
    assert.equal(completeUtf8Length(Buffer.from('abc')), 3);
    assert.equal(completeUtf8Length(Buffer.concat([Buffer.from('a'), euro])), 4);
    assert.equal(completeUtf8Length(Buffer.concat([Buffer.from('a'), euro.subarray(0, 1)])), 1);
    assert.equal(completeUtf8Length(Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)])), 1);
    const emoji = Buffer.from('😀'); // 4 bytes
    assert.equal(completeUtf8Length(emoji.subarray(0, 3)), 0);
    assert.equal(completeUtf8Length(emoji), 4);
    // Not UTF-8: never held back.
    assert.equal(completeUtf8Length(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80])), 5);
    assert.equal(completeUtf8Length(Buffer.from([0x41, 0xff])), 2);
    assert.equal(completeUtf8Length(Buffer.alloc(0)), 0);
  });

  it('splits at character boundaries, each piece at most max bytes', () => {
    const text = 'a€b😀c'.repeat(1000);
    const buf = Buffer.from(text);
    for (const max of [4, 5, 7, 64, 1000]) {
      const pieces = splitUtf8(buf, max);
      assert.ok(pieces.every((p) => p.length > 0 && p.length <= max));
      assert.equal(Buffer.concat(pieces).toString(), text);
      assert.ok(pieces.every((p) => !p.toString('utf8').includes('\uFFFD')), `max ${max}`);
    }
    // Garbage of continuation bytes still splits (no endless loop, no empty piece).
    const junk = Buffer.alloc(100, 0x80);
    assert.deepEqual(splitUtf8(junk, 10).map((p) => p.length), Array(10).fill(10));
  });
});

describe('term_* messages from the orchestrator', () => {
  const id = randomUUID();
  it('accepts well-formed ones', () => {
    assert.deepEqual(parseServerMessage(JSON.stringify({ type: 'term_open', session_id: id, cols: 80, rows: 24 })), {
      ok: true,
      message: { type: 'term_open', session_id: id, cols: 80, rows: 24 },
    });
    const full = { type: 'term_open', session_id: id, cols: 80, rows: 24, shell: '/bin/bash', user: 'deploy' };
    assert.deepEqual(parseServerMessage(JSON.stringify(full)), { ok: true, message: full });
    for (const m of [
      { type: 'term_resize', session_id: id, cols: 1, rows: 1 },
      { type: 'term_close', session_id: id },
      { type: 'term_ack', session_id: id, bytes: 0 },
    ]) {
      assert.deepEqual(parseServerMessage(JSON.stringify(m)), { ok: true, message: m });
    }
  });

  it('rejects wrong shapes with a reason', () => {
    const bad = [
      { type: 'term_open', session_id: id.toUpperCase(), cols: 80, rows: 24 },
      { type: 'term_open', session_id: id, cols: 80 },
      { type: 'term_open', session_id: id, cols: -1, rows: 24 },
      { type: 'term_open', session_id: id, cols: 80, rows: 24, shell: '' },
      { type: 'term_open', session_id: id, cols: 80, rows: 24, user: ['root'] },
      { type: 'term_resize', session_id: id, cols: 80, rows: 2.5 },
      { type: 'term_resize', cols: 80, rows: 24 },
      { type: 'term_close', session_id: 42 },
      { type: 'term_ack', session_id: id },
      { type: 'term_ack', session_id: id, bytes: Number.MAX_VALUE },
      { type: 'term_ack', session_id: id, bytes: '10' },
    ];
    for (const m of bad) {
      const parsed = parseServerMessage(JSON.stringify(m));
      assert.equal(parsed.ok, false, JSON.stringify(m));
      assert.ok(!parsed.ok && parsed.reason.startsWith(m.type), !parsed.ok ? parsed.reason : '');
    }
  });
});

describe('terminal accounts', () => {
  const files: AccountFiles = { passwd: path.join(dir, 'passwd'), shells: path.join(dir, 'shells') };
  const me = os.userInfo();
  writeFileSync(
    files.passwd,
    [
      `${me.username}:x:${me.uid}:${me.gid}:me:${me.homedir}:/bin/sh`,
      'deploy:x:1234:1235:Deploy,,,:/home/deploy:/bin/sh',
      'svc:x:999:999::/nonexistent:/usr/sbin/nologin',
      'broken:x:abc:1::/:/bin/sh',
      '',
    ].join('\n'),
  );
  writeFileSync(files.shells, '# /etc/shells: valid login shells\n/bin/sh\n\n/bin/bash\n/usr/bin/not-installed\n');

  it('reads passwd entries', () => {
    assert.deepEqual(lookupUser('deploy', files.passwd), { name: 'deploy', uid: 1234, gid: 1235, home: '/home/deploy', shell: '/bin/sh' });
    assert.equal(lookupUser('nobody-here', files.passwd), undefined);
    assert.equal(lookupUser('broken', files.passwd), undefined);
    assert.equal(lookupUser('deploy', path.join(dir, 'missing')), undefined);
  });

  it('checks shells against /etc/shells and the file system', () => {
    assert.equal(checkShell('/bin/sh', files), '/bin/sh');
    assert.throws(() => checkShell('sh', files), /not an absolute path/);
    assert.throws(() => checkShell('/usr/bin/env', files), /not listed/);
    assert.throws(() => checkShell('/usr/bin/not-installed', files), /does not exist or is not executable/);
    assert.throws(() => checkShell('/bin//sh', files), TerminalRefused);
  });

  it('switches users only as root, and needs a real login shell for another user', () => {
    const self = resolveAccount({}, false, files);
    assert.equal(self.account.name, me.username);
    assert.equal(self.switchUser, false);
    assert.equal(self.shell, me.shell || '/bin/sh', 'the agent user\'s login shell');
    assert.equal(resolveAccount({ user: me.username }, false, files).switchUser, false, 'asking for the agent\'s own user is fine');
    assert.throws(() => resolveAccount({ user: 'deploy' }, false, files), /not root/);
    const deploy = resolveAccount({ user: 'deploy' }, true, files);
    assert.deepEqual([deploy.account.uid, deploy.account.gid, deploy.shell, deploy.switchUser], [1234, 1235, '/bin/sh', true]);
    assert.throws(() => resolveAccount({ user: 'svc' }, true, files), /nologin is not a usable shell/);
    assert.equal(resolveAccount({ user: 'svc', shell: '/bin/sh' }, true, files).shell, '/bin/sh');
  });

  it('gives the shell a clean environment', () => {
    const env = shellEnvironment({ name: 'deploy', uid: 1234, gid: 1235, home: '/home/deploy', shell: '/bin/sh' }, '/bin/bash');
    assert.deepEqual(Object.keys(env).sort(), ['COLORTERM', 'HOME', 'LANG', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER']);
    assert.equal(env.SHELL, '/bin/bash');
    assert.equal(env.TERM, 'xterm-256color');
    assert.ok(!env.PATH!.includes('sbin'));
  });
});
