// Browser-held operator keys, in IndexedDB. A CryptoKey is structured-cloneable,
// so the private key is stored as a non-extractable key object: script on this
// origin can sign with it, nothing can read its bytes.
import { LocalError } from '../api/errors.js';

const DB_NAME = 'corral';
const DB_VERSION = 1;
const STORE = 'operator-keys';

export interface StoredKey {
  /** origin + "|" + operator id */
  id: string;
  origin: string;
  operator_id: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** OpenSSH public key line. */
  public_key: string;
  fingerprint: string;
  source: 'generated' | 'imported';
  created_at: string;
}

export function storeId(operatorId: string): string {
  return `${location.origin}|${operatorId}`;
}

let opening: Promise<IDBDatabase> | undefined;

function open(): Promise<IDBDatabase> {
  opening ??= new Promise<IDBDatabase>((resolve, reject) => {
    if (typeof indexedDB === 'undefined') {
      reject(new LocalError('No key storage', 'This browser offers no IndexedDB (private window?), so it cannot keep a key. Paste a private key each time, or use another browser.'));
      return;
    }
    const request = indexedDB.open(DB_NAME, DB_VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(STORE)) db.createObjectStore(STORE, { keyPath: 'id' }).createIndex('origin', 'origin');
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(new LocalError('Key storage unavailable', request.error?.message ?? 'IndexedDB could not be opened'));
  });
  opening.catch(() => (opening = undefined));
  return opening;
}

async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  return new Promise<T>((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(new LocalError('Key storage failed', tx.error?.message ?? 'IndexedDB transaction failed'));
    tx.onabort = () => reject(new LocalError('Key storage failed', tx.error?.message ?? 'IndexedDB transaction aborted'));
  });
}

export async function loadKey(operatorId: string): Promise<StoredKey | undefined> {
  return (await run<StoredKey | undefined>('readonly', (s) => s.get(storeId(operatorId)) as IDBRequest<StoredKey | undefined>)) ?? undefined;
}

export async function listKeys(): Promise<StoredKey[]> {
  const all = await run<StoredKey[]>('readonly', (s) => s.index('origin').getAll(location.origin) as IDBRequest<StoredKey[]>);
  return all.sort((a, b) => a.operator_id.localeCompare(b.operator_id));
}

export async function saveKey(key: StoredKey): Promise<void> {
  await run('readwrite', (s) => s.put(key));
}

export async function deleteKey(operatorId: string): Promise<void> {
  await run('readwrite', (s) => s.delete(storeId(operatorId)));
}
