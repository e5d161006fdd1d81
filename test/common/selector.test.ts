import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TAG_KEY_PATTERN } from '../../common/schemas/agents.js';
import {
  compileSelector,
  formatSelector,
  matchesSelector,
  parseSelector,
  SELECTOR_KEY_PATTERN,
  SelectorError,
  type Requirement,
} from '../../common/selector.js';

function reqs(text: string): readonly Requirement[] {
  return parseSelector(text).requirements;
}

/** Asserts that parsing fails at `position` with a message matching `message`. */
function fails(text: string, position: number, message: RegExp): void {
  assert.throws(
    () => parseSelector(text),
    (err: unknown) => {
      assert.ok(err instanceof SelectorError, `${JSON.stringify(text)}: expected a SelectorError, got ${String(err)}`);
      assert.equal(err.position, position, `${JSON.stringify(text)}: ${err.message}`);
      assert.match(err.message, message, JSON.stringify(text));
      assert.ok(err.message.endsWith(` at position ${position}`), err.message);
      assert.equal(err.message, `${err.reason} at position ${position}`);
      return true;
    },
  );
}

describe('parseSelector', () => {
  it('reads every operator', () => {
    assert.deepEqual(reqs('env=prod'), [{ key: 'env', operator: 'equals', value: 'prod' }]);
    assert.deepEqual(reqs('env==prod'), [{ key: 'env', operator: 'equals', value: 'prod' }]);
    assert.deepEqual(reqs('env!=prod'), [{ key: 'env', operator: 'not-equals', value: 'prod' }]);
    assert.deepEqual(reqs('env in (prod,staging)'), [{ key: 'env', operator: 'in', values: ['prod', 'staging'] }]);
    assert.deepEqual(reqs('env notin (prod,staging)'), [{ key: 'env', operator: 'notin', values: ['prod', 'staging'] }]);
    assert.deepEqual(reqs('legacy'), [{ key: 'legacy', operator: 'exists' }]);
    assert.deepEqual(reqs('!legacy'), [{ key: 'legacy', operator: 'not-exists' }]);
  });

  it('reads the example from DESIGN.md', () => {
    assert.deepEqual(reqs('role=web,env in (prod,staging),!legacy,tier!=db'), [
      { key: 'role', operator: 'equals', value: 'web' },
      { key: 'env', operator: 'in', values: ['prod', 'staging'] },
      { key: 'legacy', operator: 'not-exists' },
      { key: 'tier', operator: 'not-equals', value: 'db' },
    ]);
  });

  it('treats an empty or blank selector as no requirements', () => {
    for (const text of ['', ' ', '\t\r\n ']) assert.deepEqual(reqs(text), [], JSON.stringify(text));
  });

  it('allows whitespace around every token', () => {
    const expected = reqs('a=1,b!=2,c in (x,y),d notin (z),e,!f');
    assert.deepEqual(reqs('  a = 1 ,\tb != 2 , c in ( x , y ) ,\nd notin(z) , e , ! f  '), expected);
    assert.deepEqual(reqs('a==1,b!=2,c in(x,y),d notin(z),e,!f'), expected);
    assert.deepEqual(reqs('a =\r\n1'), [{ key: 'a', operator: 'equals', value: '1' }]);
  });

  it('allows an empty value after =, == and != (as Kubernetes does)', () => {
    assert.deepEqual(reqs('env='), [{ key: 'env', operator: 'equals', value: '' }]);
    assert.deepEqual(reqs('env=='), [{ key: 'env', operator: 'equals', value: '' }]);
    assert.deepEqual(reqs('env!='), [{ key: 'env', operator: 'not-equals', value: '' }]);
    assert.deepEqual(reqs('env= ,tier=web'), [
      { key: 'env', operator: 'equals', value: '' },
      { key: 'tier', operator: 'equals', value: 'web' },
    ]);
  });

  it('keeps set values sorted and unique', () => {
    assert.deepEqual(reqs('env in (staging,prod,staging,dev)'), [{ key: 'env', operator: 'in', values: ['dev', 'prod', 'staging'] }]);
    assert.deepEqual(reqs('env in (B,a,A,b)'), [{ key: 'env', operator: 'in', values: ['A', 'B', 'a', 'b'] }]);
    assert.deepEqual(reqs('env in (one)'), [{ key: 'env', operator: 'in', values: ['one'] }]);
  });

  it('keeps duplicate keys and requirement order', () => {
    assert.deepEqual(reqs('env!=dev,env!=test,env'), [
      { key: 'env', operator: 'not-equals', value: 'dev' },
      { key: 'env', operator: 'not-equals', value: 'test' },
      { key: 'env', operator: 'exists' },
    ]);
  });

  it('accepts the whole tag key alphabet and value alphabet', () => {
    assert.deepEqual(reqs('0app.kubernetes.io/name_x-y=Web-1.2_3/a:b@c+d'), [
      { key: '0app.kubernetes.io/name_x-y', operator: 'equals', value: 'Web-1.2_3/a:b@c+d' },
    ]);
    assert.deepEqual(reqs('k=-leading.and.trailing-'), [{ key: 'k', operator: 'equals', value: '-leading.and.trailing-' }]);
  });

  it('accepts keys of 63 characters and values of 255', () => {
    const key = 'k'.repeat(63);
    const value = 'v'.repeat(255);
    assert.deepEqual(reqs(`${key}=${value}`), [{ key, operator: 'equals', value }]);
    assert.deepEqual(reqs(`${key} in (${value})`), [{ key, operator: 'in', values: [value] }]);
  });

  it('treats "in" and "notin" as keywords only where an operator goes', () => {
    assert.deepEqual(reqs('in=notin'), [{ key: 'in', operator: 'equals', value: 'notin' }]);
    assert.deepEqual(reqs('in in (in,notin)'), [{ key: 'in', operator: 'in', values: ['in', 'notin'] }]);
    assert.deepEqual(reqs('notin,!in'), [
      { key: 'notin', operator: 'exists' },
      { key: 'in', operator: 'not-exists' },
    ]);
    assert.deepEqual(reqs('inx=1'), [{ key: 'inx', operator: 'equals', value: '1' }]);
  });

  it('uses the same tag key pattern as the API schema', () => {
    assert.equal(SELECTOR_KEY_PATTERN.source, TAG_KEY_PATTERN);
  });
});

describe('parseSelector errors', () => {
  it('needs "(" after in and notin', () => {
    fails('env in prod', 7, /^expected "\(" after "in", found "p"/);
    fails('env notin', 9, /^expected "\(" after "notin", found the end of the selector/);
    fails('env in', 6, /expected "\(" after "in"/);
  });

  it('needs a closed, non-empty set of non-empty values', () => {
    fails('env in (prod', 12, /^expected "," or "\)" to close the set opened at position 7, found the end of the selector/);
    fails('env in (prod ', 13, /to close the set opened at position 7/);
    fails('env in ()', 8, /^expected a value, found "\)" \(a set needs at least one value\)/);
    fails('env in ( )', 9, /a set needs at least one value/);
    fails('env in (a,)', 10, /^expected a value, found "\)"/);
    fails('env in (,a)', 8, /^expected a value, found ","/);
    fails('env in (a,,b)', 10, /^expected a value, found ","/);
    fails('env in (a b)', 10, /^expected "," or "\)" to close the set opened at position 7, found "b"/);
    fails('env in (a=b)', 9, /found "="/);
    fails('env in ((a))', 8, /^expected a value, found "\("/);
    fails('env in (a))', 10, /^expected "," or the end of the selector after "env in \(a\)", found "\)"/);
  });

  it('needs a key before an operator', () => {
    fails('=x', 0, /^expected a tag key, found "="/);
    fails('!=x', 1, /^expected a tag key after "!", found "="/);
    fails('!', 1, /^expected a tag key after "!", found the end of the selector/);
    fails(' in (a)', 4, /^expected an operator .* after "in", found "\("/);
    fails('(a)', 0, /^expected a tag key, found "\("/);
  });

  it('refuses empty requirements and stray commas', () => {
    fails('a,,b', 2, /^expected a tag key, found ","/);
    fails(',a', 0, /^expected a tag key, found ","/);
    fails('a,', 2, /^expected a requirement after ","/);
    fails('env=prod,', 9, /^expected a requirement after ","/);
    fails('env=prod , ', 11, /^expected a requirement after ","/);
    fails(',', 0, /^expected a tag key/);
  });

  it('refuses a value after an existence test', () => {
    fails('!env=prod', 4, /^expected "," or the end of the selector after "!env", found "="/);
    fails('!env in (a)', 5, /^expected "," or the end of the selector after "!env", found "i"/);
  });

  it('refuses unknown operators and stray words', () => {
    fails('env prod', 4, /^expected an operator \(=, ==, !=, in, notin\), "," or the end of the selector after "env", found "p"/);
    fails('env inn (a)', 4, /^expected an operator/);
    fails('env!prod', 3, /^expected "!=" after "env", found "!" without "="/);
    fails('env===prod', 5, /^expected a value after "==", found "="/);
    fails('env = = prod', 6, /^expected a value after "=", found "="/);
    fails('env=(a)', 4, /^expected a value after "=", found "\("/);
    fails('env=a b', 6, /^expected "," or the end of the selector after "env=a", found "b"/);
    fails('env=a!=b', 5, /after "env=a", found "!"/);
    fails('env>1', 3, /^invalid character ">" in tag key/);
    fails('env<1', 3, /^invalid character "<" in tag key/);
  });

  it('refuses bad characters in keys', () => {
    fails('Env=prod', 0, /^tag key must start with a lower-case letter or digit, found "E"/);
    fails('eNv=prod', 1, /^invalid character "N" in tag key \(allowed: a-z 0-9 \. _ \/ -\)/);
    fails('-env', 0, /^tag key must start with a lower-case letter or digit, found "-"/);
    fails('.env', 0, /must start with a lower-case letter or digit/);
    fails('/env', 0, /must start with a lower-case letter or digit/);
    fails('en$v=1', 2, /^invalid character "\$" in tag key/);
    fails('env:x=1', 3, /^invalid character ":" in tag key/);
    fails('role=web,ti*r=db', 11, /^invalid character "\*" in tag key/);
    fails('!en"v', 3, /^invalid character """ in tag key/);
  });

  it('refuses bad characters in values', () => {
    fails('env="prod"', 4, /^invalid character """ in value \(allowed: A-Z a-z 0-9 \. _ - \/ : @ \+\)/);
    fails("env='prod'", 4, /^invalid character "'" in value/);
    fails('env=pr;od', 6, /^invalid character ";" in value/);
    fails('env=a*', 5, /^invalid character "\*" in value/);
    fails('env in (a,b#)', 11, /^invalid character "#" in value/);
    fails('env!=a\\b', 6, /^invalid character "\\" in value/);
  });

  it('refuses non-ASCII and control characters, naming them', () => {
    fails('env=prød', 6, /^invalid character "ø" \(U\+00F8\) in value/);
    fails('énv=prod', 0, /^tag key must start with a lower-case letter or digit, found "é" \(U\+00E9\)/);
    fails('env=😀', 4, /^invalid character "😀" \(U\+1F600\) in value/);
    fails('env in (a,b😀)', 11, /"😀" \(U\+1F600\)/);
    fails('e😀nv', 1, /^invalid character "😀" \(U\+1F600\) in tag key/);
    fails('env=a\u0000', 5, /^invalid character U\+0000 in value/);
    fails('env=a\u00a0b', 5, /^invalid character "\u00a0" \(U\+00A0\) in value/);
    fails('env=a\u200b', 5, /U\+200B/);
    fails('env\u000b=a', 3, /^invalid character U\+000B in tag key/);
  });

  it('refuses keys longer than 63 characters and values longer than 255', () => {
    fails('k'.repeat(64), 63, /^tag key longer than 63 characters/);
    fails(`a=1,${'k'.repeat(100)}=x`, 4 + 63, /^tag key longer than 63 characters/);
    fails(`!${'k'.repeat(64)}`, 64, /^tag key longer than 63 characters/);
    fails(`k=${'v'.repeat(256)}`, 2 + 255, /^value longer than 255 characters/);
    fails(`k in (a,${'v'.repeat(300)})`, 8 + 255, /^value longer than 255 characters/);
  });

  it('is a SelectorError, an Error with a name', () => {
    try {
      parseSelector('env in prod');
      assert.fail('should throw');
    } catch (err) {
      assert.ok(err instanceof Error);
      assert.ok(err instanceof SelectorError);
      assert.equal(err.name, 'SelectorError');
      assert.equal(err.message, 'expected "(" after "in", found "p" at position 7');
    }
  });
});

describe('matchesSelector', () => {
  const web = { role: 'web', env: 'prod', tier: 'frontend' };
  const db = { role: 'db', env: 'staging', legacy: '' };
  const bare = {};
  const cases: [string, Record<string, string>, boolean][] = [
    ['', bare, true],
    ['', web, true],
    ['role=web', web, true],
    ['role=web', db, false],
    ['role=web', bare, false],
    ['role==web', web, true],
    ['role!=web', web, false],
    ['role!=web', db, true],
    ['role!=web', bare, true], // absent keys satisfy != (Kubernetes)
    ['env in (prod,staging)', web, true],
    ['env in (prod,staging)', db, true],
    ['env in (dev)', web, false],
    ['env in (prod)', bare, false], // in needs the key
    ['env notin (prod)', web, false],
    ['env notin (prod)', db, true],
    ['env notin (prod)', bare, true], // absent keys satisfy notin (Kubernetes)
    ['legacy', db, true],
    ['legacy', web, false],
    ['!legacy', web, true],
    ['!legacy', db, false],
    ['legacy=', db, true], // the empty value is a value
    ['legacy=', web, false],
    ['legacy!=', db, false],
    ['legacy!=', web, true],
    ['Role=web'.toLowerCase(), web, true],
    ['role=Web', web, false], // values are case-sensitive
    ['role=web,env=prod', web, true],
    ['role=web,env=staging', web, false],
    ['role=web,env in (prod,staging),!legacy,tier!=db', web, true],
    ['role=web,env in (prod,staging),!legacy,tier!=db', db, false],
    ['env!=dev,env!=test', web, true],
    ['env!=dev,env!=prod', web, false], // duplicate keys: all must hold
    ['env,env=prod,env in (prod)', web, true],
  ];
  for (const [text, tags, expected] of cases) {
    it(`${JSON.stringify(text)} on ${JSON.stringify(tags)} is ${expected}`, () => {
      assert.equal(matchesSelector(parseSelector(text), tags), expected);
      assert.equal(compileSelector(text)(tags), expected);
    });
  }

  it('looks only at the tags themselves, not at Object.prototype', () => {
    assert.equal(compileSelector('constructor')({}), false);
    assert.equal(compileSelector('!tostring,!constructor')({}), true);
    assert.equal(compileSelector('constructor!=x')({}), true);
    assert.equal(compileSelector('constructor=x')({ constructor: 'x' }), true);
    assert.equal(compileSelector('a')(Object.create({ a: '1' }) as Record<string, string>), false);
  });
});

describe('compileSelector', () => {
  it('parses once and throws SelectorError for bad text', () => {
    assert.throws(() => compileSelector('env in prod'), SelectorError);
    const match = compileSelector('role=web');
    assert.equal(match({ role: 'web' }), true);
    assert.equal(match({ role: 'db' }), false);
  });
});

describe('formatSelector', () => {
  it('writes the canonical form', () => {
    const canonical: [string, string][] = [
      ['', ''],
      ['   ', ''],
      [' role = web , env in ( staging , prod ) , ! legacy , tier != db ', 'role=web,env in (prod,staging),!legacy,tier!=db'],
      ['env==prod', 'env=prod'],
      ['env==', 'env='],
      ['env!=', 'env!='],
      ['env notin(b,a,b)', 'env notin (a,b)'],
      ['in in (in)', 'in in (in)'],
      ['a,b,!c', 'a,b,!c'],
    ];
    for (const [text, expected] of canonical) assert.equal(formatSelector(parseSelector(text)), expected, JSON.stringify(text));
  });

  // A small deterministic generator (no Math.random: failures must reproduce).
  function rng(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('round-trips generated selectors: parse(format(parse(x))) equals parse(x), and format is a fixed point', () => {
    const random = rng(7390);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const keyChars = 'abcz09._/-';
    const valueChars = 'aZ09._-/:@+';
    const word = (first: string, rest: string, max: number) => {
      let s = pick([...first]);
      const n = Math.floor(random() * max);
      for (let i = 0; i < n; i++) s += pick([...rest]);
      return s;
    };
    const key = () => pick(['in', 'notin', word('az09', keyChars, 8)]);
    const value = () => pick(['in', 'notin', word(valueChars, valueChars, 6)]);
    const ws = () => pick(['', '', ' ', '  ', '\t', '\n']);
    const requirement = (): string => {
      switch (Math.floor(random() * 7)) {
        case 0:
          return `${key()}${ws()}=${ws()}${random() < 0.2 ? '' : value()}`;
        case 1:
          return `${key()}${ws()}==${ws()}${value()}`;
        case 2:
          return `${key()}${ws()}!=${ws()}${random() < 0.2 ? '' : value()}`;
        case 3:
        case 4: {
          const values = Array.from({ length: 1 + Math.floor(random() * 4) }, () => `${ws()}${value()}${ws()}`);
          return `${key()} ${ws()}${pick(['in', 'notin'])}${ws()}(${values.join(',')})`;
        }
        case 5:
          return key();
        default:
          return `!${ws()}${key()}`;
      }
    };
    for (let i = 0; i < 2000; i++) {
      const n = Math.floor(random() * 5);
      const text = ws() + Array.from({ length: n }, requirement).join(`${ws()},${ws()}`) + ws();
      const parsed = parseSelector(text);
      const formatted = formatSelector(parsed);
      assert.deepEqual(parseSelector(formatted), parsed, `${JSON.stringify(text)} -> ${JSON.stringify(formatted)}`);
      assert.equal(formatSelector(parseSelector(formatted)), formatted);
      assert.equal(parsed.requirements.length, n);
    }
  });

  it('either parses and round-trips, or fails at a position inside the text, on random junk', () => {
    const random = rng(42);
    const alphabet = [...'abin tn=!(),.-_/:@+"\'*é😀\t', 'in', 'notin', 'in (', '!='];
    for (let i = 0; i < 5000; i++) {
      let text = '';
      const n = Math.floor(random() * 16);
      for (let j = 0; j < n; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      let parsed;
      try {
        parsed = parseSelector(text);
      } catch (err) {
        assert.ok(err instanceof SelectorError, `${JSON.stringify(text)}: ${String(err)}`);
        assert.ok(err.position >= 0 && err.position <= text.length, `${JSON.stringify(text)}: position ${err.position}`);
        continue;
      }
      assert.deepEqual(parseSelector(formatSelector(parsed)), parsed, JSON.stringify(text));
    }
  });
});
