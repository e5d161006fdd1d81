import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { migrate, openDatabase } from '../../orchestrator/db/database.js';
import { removeDir, tempDir } from '../helpers/orchestrator.js';

const REAL_MIGRATIONS = fileURLToPath(new URL('../../orchestrator/db/migrations/', import.meta.url));

let dir: string;
let n = 0;
before(() => {
  dir = tempDir('corral-migrations-');
});
after(() => removeDir(dir));

/** A fresh migrations folder holding the given files. */
function migrationsDir(files: Record<string, string>): string {
  const d = path.join(dir, `migrations-${++n}`);
  mkdirSync(d);
  for (const [name, sql] of Object.entries(files)) writeFileSync(path.join(d, name), sql);
  return d;
}

function freshDb(): Database.Database {
  return new Database(path.join(dir, `db-${++n}.sqlite`));
}

function applied(db: Database.Database): string[] {
  return (db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as { version: number; name: string }[]).map(
    (r) => `${r.version}:${r.name}`,
  );
}

function tableCount(db: Database.Database, name: string): number {
  return (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) as { n: number }).n;
}

const FIRST = '001_things.sql';
const SECOND = '002_thing_colour.sql';
const files = {
  [FIRST]: 'CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL);',
  // Only works after 001: order matters.
  [SECOND]: "ALTER TABLE things ADD COLUMN colour TEXT NOT NULL DEFAULT 'brown';",
};

describe('migrate()', () => {
  it('applies every migration in order on a fresh database and records them', () => {
    const db = freshDb();
    try {
      assert.equal(migrate(db, migrationsDir(files)), 2);
      assert.deepEqual(applied(db), [`1:${FIRST}`, `2:${SECOND}`]);
      db.prepare("INSERT INTO things (name) VALUES ('x')").run();
      assert.deepEqual(db.prepare('SELECT name, colour FROM things').get(), { name: 'x', colour: 'brown' });
    } finally {
      db.close();
    }
  });

  it('is idempotent, and applies only what is new', () => {
    const db = freshDb();
    try {
      const one = migrationsDir({ [FIRST]: files[FIRST] });
      assert.equal(migrate(db, one), 1);
      assert.equal(migrate(db, one), 0);
      const both = migrationsDir(files);
      assert.equal(migrate(db, both), 1);
      assert.equal(migrate(db, both), 0);
      assert.deepEqual(applied(db), [`1:${FIRST}`, `2:${SECOND}`]);
    } finally {
      db.close();
    }
  });

  it('refuses a database that has a migration the files do not know', () => {
    const db = freshDb();
    try {
      migrate(db, migrationsDir(files));
      assert.throws(() => migrate(db, migrationsDir({ [FIRST]: files[FIRST] })), /002_thing_colour\.sql.*does not know/);
    } finally {
      db.close();
    }
  });

  it('refuses a database whose migration has another name than the file', () => {
    const db = freshDb();
    try {
      migrate(db, migrationsDir(files));
      assert.throws(() => migrate(db, migrationsDir({ [FIRST]: files[FIRST], '002_renamed.sql': files[SECOND] })), /002_thing_colour\.sql but the file is 002_renamed\.sql/);
    } finally {
      db.close();
    }
  });

  it('refuses badly named or out-of-sequence files', () => {
    const db = freshDb();
    try {
      assert.throws(() => migrate(db, migrationsDir({ '1_things.sql': files[FIRST] })), /must be named NNN_words\.sql/);
      assert.throws(() => migrate(db, migrationsDir({ [FIRST]: files[FIRST], '003_gap.sql': 'SELECT 1;' })), /out of sequence/);
      assert.deepEqual(applied(db), []);
    } finally {
      db.close();
    }
  });

  it('rolls a failing migration back whole and records nothing for it', () => {
    const db = freshDb();
    try {
      const broken = migrationsDir({
        [FIRST]: files[FIRST],
        '002_half.sql': 'CREATE TABLE half_done (id INTEGER);\nTHIS IS NOT SQL;',
      });
      assert.throws(() => migrate(db, broken));
      assert.deepEqual(applied(db), [`1:${FIRST}`]);
      assert.equal(tableCount(db, 'half_done'), 0);
    } finally {
      db.close();
    }
  });

  it('brings the real migrations up on a fresh file, with WAL and foreign keys on (openDatabase)', () => {
    const real = readdirSync(REAL_MIGRATIONS).filter((f) => f.endsWith('.sql')).sort();
    assert.ok(real.length >= 1);
    const file = path.join(dir, 'corral.db');
    const db = openDatabase(file);
    try {
      assert.deepEqual(applied(db), real.map((name, i) => `${i + 1}:${name}`));
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
      for (const table of ['operators', 'operator_keys', 'sessions', 'auth_challenges', 'setup_tokens', 'settings', 'audit_events']) {
        assert.equal(tableCount(db, table), 1, table);
      }
      assert.equal(migrate(db), 0, 'nothing left to apply');
    } finally {
      db.close();
    }
    // Reopening runs migrate again and changes nothing.
    const again = openDatabase(file);
    try {
      assert.equal(applied(again).length, real.length);
    } finally {
      again.close();
    }
    // A copy of the real files plus a newer one applies just the newer one.
    const extended = migrationsDir({});
    for (const f of real) copyFileSync(path.join(REAL_MIGRATIONS, f), path.join(extended, f));
    writeFileSync(path.join(extended, `${String(real.length + 1).padStart(3, '0')}_extra.sql`), 'CREATE TABLE extra (id INTEGER);');
    const third = openDatabase(file);
    try {
      assert.equal(migrate(third, extended), 1);
      // And the stock files now refuse this database, which is "from a newer Corral".
      assert.throws(() => migrate(third), /does not know; use a newer Corral/);
    } finally {
      third.close();
    }
  });
});
