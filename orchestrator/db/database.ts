import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export type Db = Database.Database;

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const MIGRATION_NAME = /^(\d{3})_[a-z0-9_]+\.sql$/;

interface Migration {
  version: number;
  name: string;
  sql: string;
}

function loadMigrations(dir: string): Migration[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  return files.map((name, index) => {
    const match = MIGRATION_NAME.exec(name);
    if (!match) throw new Error(`migration file ${name} must be named NNN_words.sql`);
    const version = Number(match[1]);
    if (version !== index + 1) throw new Error(`migration ${name} is out of sequence (expected ${index + 1})`);
    return { version, name, sql: readFileSync(path.join(dir, name), 'utf8') };
  });
}

/**
 * Applies every migration not yet recorded, each in its own transaction, and
 * refuses a database whose applied list does not match the files (a newer
 * Corral wrote it, or a file was renamed).
 */
export function migrate(db: Db, dir = MIGRATIONS_DIR): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const migrations = loadMigrations(dir);
  const applied = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as {
    version: number;
    name: string;
  }[];
  for (const row of applied) {
    const file = migrations[row.version - 1];
    if (!file) throw new Error(`database has migration ${row.name}, which this version of Corral does not know; use a newer Corral`);
    if (file.name !== row.name) throw new Error(`database migration ${row.version} is ${row.name} but the file is ${file.name}`);
  }
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  let count = 0;
  for (const m of migrations.slice(applied.length)) {
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    })();
    count++;
  }
  return count;
}

export function openDatabase(file: string): Db {
  // Operators' keys and the audit log are nobody else's business; SQLite gives -wal/-shm the same mode.
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // FULL: a transaction the API acknowledged survives a crash of the process or the machine.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}
