import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AsciicastError,
  capIdleTime,
  formatAsciicastEvent,
  formatAsciicastHeader,
  parseAsciicast,
  parseAsciicastEvent,
  parseAsciicastHeader,
  parseResize,
  type AsciicastEvent,
} from '../../common/asciicast.js';

const HEADER = '{"version": 2, "width": 80, "height": 24, "timestamp": 1700000000, "env": {"SHELL": "/bin/bash", "TERM": "xterm-256color"}}';

/** Asserts that parsing `text` fails on `line` with a reason matching `reason`. */
function fails(text: string, line: number, reason: RegExp): void {
  assert.throws(
    () => parseAsciicast(text),
    (err: unknown) => err instanceof AsciicastError && err.line === line && reason.test(err.reason) && err.message.startsWith(`line ${line}: `),
  );
}

describe('parseAsciicast', () => {
  it('reads the header and every event in order', () => {
    const cast = parseAsciicast([HEADER, '[0.1, "o", "$ "]', '[0.5, "i", "ls\\r"]', '[0.52, "o", "a  b\\r\\n"]', '[1.0, "r", "100x30"]', '[1.2, "m", ""]', ''].join('\n'));
    assert.equal(cast.header.version, 2);
    assert.equal(cast.header.width, 80);
    assert.equal(cast.header.height, 24);
    assert.equal(cast.header.timestamp, 1700000000);
    assert.deepEqual(cast.header.env, { SHELL: '/bin/bash', TERM: 'xterm-256color' });
    assert.deepEqual(cast.events, [
      { time: 0.1, code: 'o', data: '$ ' },
      { time: 0.5, code: 'i', data: 'ls\r' },
      { time: 0.52, code: 'o', data: 'a  b\r\n' },
      { time: 1.0, code: 'r', data: '100x30' },
      { time: 1.2, code: 'm', data: '' },
    ]);
  });

  it('keeps unicode and escape sequences in data as they were', () => {
    const cast = parseAsciicast(`${HEADER}\n${JSON.stringify([0, 'o', '\u001b[1;32mgrün ✓\u001b[0m 🐄'])}\n`);
    assert.equal(cast.events[0]!.data, '\u001b[1;32mgrün ✓\u001b[0m 🐄');
  });

  it('accepts a header alone, blank lines and CRLF-free trailing newlines', () => {
    assert.deepEqual(parseAsciicast(`${HEADER}\n`).events, []);
    assert.equal(parseAsciicast(`\n${HEADER}\n\n[1, "o", "x"]\n\n`).events.length, 1);
  });

  it('keeps header fields it does not know', () => {
    const cast = parseAsciicast('{"version":2,"width":10,"height":5,"x_corral_session":"abc"}');
    assert.equal(cast.header.x_corral_session, 'abc');
  });

  it('refuses an empty file', () => {
    fails('', 1, /empty/);
    fails('\n\n', 1, /empty/);
  });

  it('refuses a bad header, naming the problem', () => {
    fails('not json', 1, /not valid JSON/);
    fails('[2, 80, 24]', 1, /JSON object/);
    fails('{"version": 1, "width": 80, "height": 24}', 1, /unsupported version 1/);
    fails('{"width": 80, "height": 24}', 1, /unsupported version undefined/);
    fails('{"version": 2, "width": 0, "height": 24}', 1, /width/);
    fails('{"version": 2, "width": 80, "height": 2.5}', 1, /height/);
    fails('{"version": 2, "width": 80, "height": 24, "timestamp": "yesterday"}', 1, /timestamp/);
    fails('{"version": 2, "width": 80, "height": 24, "idle_time_limit": -1}', 1, /idle_time_limit/);
    fails('{"version": 2, "width": 80, "height": 24, "title": 3}', 1, /title/);
    fails('{"version": 2, "width": 80, "height": 24, "env": {"A": 1}}', 1, /env/);
  });

  it('refuses a bad event, naming its line', () => {
    fails(`${HEADER}\n[0.1, "o", "a"]\n{"time": 1}`, 3, /\[time, code, data\]/);
    fails(`${HEADER}\n[0.1, "o"]`, 2, /\[time, code, data\]/);
    fails(`${HEADER}\n[0.1, "o", "a"`, 2, /not valid JSON/);
    fails(`${HEADER}\n["0.1", "o", "a"]`, 2, /time must be/);
    fails(`${HEADER}\n[-1, "o", "a"]`, 2, /time must be/);
    fails(`${HEADER}\n[0.1, "x", "a"]`, 2, /unknown event code "x"/);
    fails(`${HEADER}\n[0.1, "o", 5]`, 2, /data must be a string/);
    fails(`${HEADER}\n[0.1, "r", "wide"]`, 2, /COLSxROWS/);
    // blank lines still count, so the number matches an editor's
    fails(`${HEADER}\n\n[2, "o", "a"]\n[1, "o", "b"]`, 4, /before the previous event/);
  });

  it('moves an event whose clock stepped back to the previous time when asked to', () => {
    const cast = parseAsciicast(`${HEADER}\n[2, "o", "a"]\n[1, "o", "b"]\n[3, "o", "c"]`, { tolerateTimeSkew: true });
    assert.deepEqual(
      cast.events.map((e) => e.time),
      [2, 2, 3],
    );
  });

  it('round-trips what the formatters write', () => {
    const header = { version: 2 as const, width: 120, height: 40, timestamp: 1700000000 };
    const events: AsciicastEvent[] = [
      { time: 0, code: 'o', data: 'hello\r\n' },
      { time: 1.234567, code: 'i', data: 'q' },
      { time: 2, code: 'r', data: '90x30' },
    ];
    const text = [formatAsciicastHeader(header), ...events.map(formatAsciicastEvent)].join('\n') + '\n';
    const cast = parseAsciicast(text);
    assert.deepEqual(cast.header, header);
    assert.deepEqual(cast.events, events);
  });
});

describe('parseAsciicastHeader / parseAsciicastEvent', () => {
  it('parse single lines with the line number given', () => {
    assert.equal(parseAsciicastHeader('{"version":2,"width":1,"height":1}').width, 1);
    assert.deepEqual(parseAsciicastEvent('[3, "o", "x"]', 7, 2), { time: 3, code: 'o', data: 'x' });
    assert.throws(() => parseAsciicastEvent('[1, "o", "x"]', 7, 2), (err: unknown) => err instanceof AsciicastError && err.line === 7);
  });
});

describe('parseResize', () => {
  it('reads COLSxROWS', () => {
    assert.deepEqual(parseResize('120x40'), { cols: 120, rows: 40 });
    assert.equal(parseResize('0x40'), undefined);
    assert.equal(parseResize('120 x 40'), undefined);
    assert.equal(parseResize('120x'), undefined);
  });
});

describe('capIdleTime', () => {
  const ev = (time: number): AsciicastEvent => ({ time, code: 'o', data: String(time) });

  it('shortens every pause longer than the limit to the limit', () => {
    const capped = capIdleTime([ev(0.5), ev(1), ev(11), ev(11.5), ev(100)], 2);
    assert.deepEqual(
      capped.map((e) => e.time),
      [0.5, 1, 3, 3.5, 5.5],
    );
    assert.deepEqual(
      capped.map((e) => e.data),
      ['0.5', '1', '11', '11.5', '100'],
    );
  });

  it('caps a long wait before the first event too, and leaves short gaps alone', () => {
    assert.deepEqual(
      capIdleTime([ev(30), ev(31)], 2).map((e) => e.time),
      [2, 3],
    );
    assert.deepEqual(
      capIdleTime([ev(0.1), ev(0.2)], 2).map((e) => e.time),
      [0.1, 0.2],
    );
    assert.deepEqual(capIdleTime([], 2), []);
  });
});
