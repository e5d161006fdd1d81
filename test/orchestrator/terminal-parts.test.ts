// The terminal path's small parts on their own: the asciicast writer and the checks on
// what agents send about terminals.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parseAsciicast } from '../../common/asciicast.js';
import { checkTerminal, parseFrame } from '../../orchestrator/hub/link-messages.js';
import { AsciicastWriter, formatCapMarker } from '../../orchestrator/services/asciicast.js';
import { removeDir, tempDir } from '../helpers/orchestrator.js';

const dir = tempDir('corral-cast-');
after(() => removeDir(dir));

function write(name: string, cap: number, feed: (w: AsciicastWriter) => void, secrets: string[] = []): Promise<string> {
  const file = path.join(dir, name);
  const w = new AsciicastWriter(file, { width: 80, height: 24, timestamp: 1_700_000_000, shell: '/bin/sh', title: 'n — op' }, cap, 1000, (err) => assert.fail(err), secrets);
  feed(w);
  return w.close().then(() => readFileSync(file, 'utf8'));
}

describe('AsciicastWriter', () => {
  it('writes a v2 header and output, input and resize events', async () => {
    const text = await write('a.cast', 1 << 20, (w) => {
      w.output(Buffer.from('hello\r\n'), 1500, () => {});
      w.input(Buffer.from('ls\r'), 2000);
      w.resize(120, 40, 2500);
    });
    const cast = parseAsciicast(text);
    assert.equal(cast.header.version, 2);
    assert.deepEqual(cast.header.env, { TERM: 'xterm-256color', SHELL: '/bin/sh' });
    assert.deepEqual(cast.events, [
      { time: 0.5, code: 'o', data: 'hello\r\n' },
      { time: 1, code: 'i', data: 'ls\r' },
      { time: 1.5, code: 'r', data: '120x40' },
    ]);
  });

  it('keeps a UTF-8 character split across two frames whole', async () => {
    const bytes = Buffer.from('né€', 'utf8'); // n, é (2 bytes), € (3 bytes)
    const text = await write('b.cast', 1 << 20, (w) => {
      w.output(bytes.subarray(0, 2), 1001, () => {});
      w.output(bytes.subarray(2, 4), 1002, () => {});
      w.output(bytes.subarray(4), 1003, () => {});
    });
    const data = parseAsciicast(text).events.map((e) => e.data).join('');
    assert.equal(data, 'né€');
    assert.ok(!data.includes('\ufffd'));
  });

  it('records secret values as ********, also when a frame cuts one in two', async () => {
    const secret = 'hunter2-xyz';
    const text = await write(
      'd.cast',
      1 << 20,
      (w) => {
        w.output(Buffer.from(`password=${secret}\r\n`), 1001, () => {});
        w.output(Buffer.from('again: hunt'), 1002, () => {});
        w.output(Buffer.from('er2-xyz and the end'), 1003, () => {});
        w.input(Buffer.from(`echo ${secret}`), 1004);
      },
      [secret],
    );
    assert.ok(!text.includes(secret), text);
    const cast = parseAsciicast(text);
    const out = cast.events.filter((e) => e.code === 'o').map((e) => e.data).join('');
    assert.equal(out, 'password=********\r\nagain: ******** and the end');
    assert.equal(cast.events.filter((e) => e.code === 'i').map((e) => e.data).join(''), 'echo ********');
  });

  it('stops at the cap with one marker event', async () => {
    let calls = 0;
    const text = await write('c.cast', 2048, (w) => {
      for (let i = 0; i < 100; i++) w.output(Buffer.from(`line ${i}\r\n`), 1000 + i, () => calls++);
      assert.equal(w.truncated, true);
    });
    assert.equal(calls, 100, 'every write completes, recorded or not');
    const cast = parseAsciicast(text);
    assert.equal(cast.events.filter((e) => e.data === formatCapMarker(2048)).length, 1);
    assert.equal(cast.events.at(-1)!.data, formatCapMarker(2048));
    assert.ok(text.length <= 2048 + 100);
    assert.equal(formatCapMarker(50 * 1024 * 1024), '\r\n[corral: transcript truncated at 50 MiB]\r\n');
  });
});

describe('terminal messages from agents', () => {
  const id = '0b7e5a3c-51f1-4c35-9d0a-2c1f2b7c9e10';
  it('accepts well-formed ones, keeping only known fields', () => {
    assert.deepEqual(checkTerminal({ type: 'term_opened', session_id: id, pid: 42, shell: '/bin/sh', user: 'root', extra: 1 }), {
      ok: true,
      message: { type: 'term_opened', session_id: id, pid: 42, shell: '/bin/sh', user: 'root' },
    });
    assert.equal(checkTerminal({ type: 'term_exit', session_id: id, exit_code: null, signal: 9 }).ok, true);
    assert.equal(checkTerminal({ type: 'term_error', session_id: id, message: 'no such shell' }).ok, true);
    assert.equal(parseFrame(Buffer.from(JSON.stringify({ type: 'term_exit' })), false).ok, true);
  });
  it('refuses bad fields with a reason', () => {
    const bad: Record<string, unknown>[] = [
      { type: 'term_opened', session_id: 'nope', pid: 1, shell: '/bin/sh', user: 'root' },
      { type: 'term_opened', session_id: id.toUpperCase(), pid: 1, shell: '/bin/sh', user: 'root' },
      { type: 'term_opened', session_id: id, pid: 0, shell: '/bin/sh', user: 'root' },
      { type: 'term_opened', session_id: id, pid: 1.5, shell: '/bin/sh', user: 'root' },
      { type: 'term_opened', session_id: id, pid: 1, shell: '', user: 'root' },
      { type: 'term_opened', session_id: id, pid: 1, shell: '/bin/sh' },
      { type: 'term_exit', session_id: id, exit_code: '0', signal: null },
      { type: 'term_exit', session_id: id, exit_code: 0, signal: 300 },
      { type: 'term_exit', session_id: id, exit_code: 0 },
      { type: 'term_error', session_id: id, message: 'x'.repeat(5000) },
      { type: 'term_error', session_id: id },
    ];
    for (const m of bad) {
      const r = checkTerminal(m);
      assert.equal(r.ok, false, JSON.stringify(m).slice(0, 100));
      if (!r.ok) assert.match(r.reason, /term_|session_id/);
    }
  });
});
