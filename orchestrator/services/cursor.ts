import { BadRequest } from '../http/errors.js';

// Cursors are opaque to clients: base64url JSON of the keyset position.

export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodeCursor(cursor: string, key: string): string | number {
  try {
    const value = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>)[key];
    if (typeof value === 'string' || typeof value === 'number') return value;
  } catch {
    // fall through to the error below
  }
  throw new BadRequest('cursor is not one this server gave out', [{ field: 'querystring.cursor', message: 'invalid cursor' }], 'invalid-cursor');
}
