import type { Db } from '../db/database.js';

/** Settings changed at run time through the API, stored as JSON values. */
export class SettingsRepository {
  private readonly select;
  private readonly upsert;

  constructor(db: Db) {
    this.select = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
    this.upsert = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
  }

  get<T>(key: string, fallback: T): T {
    const row = this.select.get(key);
    return row ? (JSON.parse(row.value) as T) : fallback;
  }

  set(key: string, value: unknown): void {
    this.upsert.run(key, JSON.stringify(value));
  }
}
