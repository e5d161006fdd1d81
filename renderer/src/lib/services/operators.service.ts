import type { CreateOperatorRequest, Operator } from '../../../../common/schemas/operators.js';
import type { List } from '../../../../common/schemas/shared.js';
import { api } from '../api/index.js';
import { generateBrowserKey } from '../crypto/browser-keys.js';
import { describeKeys, type KeyInfo } from '../crypto/fingerprint.js';
import { loadKey, saveKey } from '../crypto/key-store.js';
import { confirmAction } from '../state/confirm.svelte.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { session } from '../state/session.svelte.js';
import { handleError } from '../utils/handle-error.js';

/** An operator with its keys' fingerprints worked out for display. */
export type OperatorRow = Operator & { keys: KeyInfo[] };

export async function withKeys(operator: Operator): Promise<OperatorRow> {
  return { ...operator, keys: await describeKeys(operator.public_keys) };
}

export async function loadOperators(cursor?: string): Promise<List<OperatorRow> | undefined> {
  try {
    const page = await api.listOperators({ limit: 100, cursor });
    return { items: await Promise.all(page.items.map(withKeys)), next_cursor: page.next_cursor };
  } catch (err) {
    handleError(err, 'Loading operators');
    return undefined;
  }
}

export async function createOperator(request: CreateOperatorRequest, form: FormErrors): Promise<Operator | undefined> {
  try {
    const created = await api.createOperator(request);
    form.clear();
    notices.success(`Operator ${created.operator_id} added`, `Role ${created.role}, ${created.public_keys.length} key${created.public_keys.length === 1 ? '' : 's'}.`);
    return created;
  } catch (err) {
    handleError(err, 'Adding the operator', form);
    return undefined;
  }
}

export async function removeOperator(operator: Operator): Promise<boolean> {
  const ok = await confirmAction({
    title: `Remove ${operator.operator_id}?`,
    message: `${operator.name} (${operator.role}) loses access at once: their sessions end and their keys stop working. This cannot be undone.`,
    confirmLabel: 'Remove operator',
    danger: true,
  });
  if (!ok) return false;
  try {
    await api.removeOperator(operator.operator_id);
    notices.success(`Operator ${operator.operator_id} removed`);
    return true;
  } catch (err) {
    handleError(err, `Removing ${operator.operator_id}`);
    return false;
  }
}

export async function addOwnKey(publicKey: string, form: FormErrors): Promise<boolean> {
  try {
    session.setOperator(await api.addOwnKey({ public_key: publicKey.trim() }));
    form.clear();
    notices.success('Key added', 'You can now sign in with it.');
    return true;
  } catch (err) {
    handleError(err, 'Adding your key', form);
    return false;
  }
}

export async function removeOwnKey(key: KeyInfo): Promise<boolean> {
  const ok = await confirmAction({
    title: 'Remove this key?',
    message: `${key.fingerprint}${key.comment ? ` (${key.comment})` : ''} stops working at once, and sessions signed with it end.`,
    confirmLabel: 'Remove key',
    danger: true,
  });
  if (!ok) return false;
  try {
    session.setOperator(await api.removeOwnKey(key.fingerprint));
    notices.success('Key removed');
    return true;
  } catch (err) {
    handleError(err, 'Removing your key');
    return false;
  }
}

/** Makes a key in this browser and adds its public half to the signed-in operator. */
export async function addBrowserKeyToMe(): Promise<boolean> {
  const me = session.operator;
  if (!me) return false;
  try {
    if (await loadKey(me.operator_id)) {
      const ok = await confirmAction({
        title: 'Replace the key kept in this browser?',
        message: `This browser already keeps a key for ${me.operator_id}. A new one replaces it here; the old one stays on your operator until you remove it.`,
        confirmLabel: 'Make a new key',
      });
      if (!ok) return false;
    }
    const key = await generateBrowserKey(me.operator_id);
    session.setOperator(await api.addOwnKey({ public_key: key.public_key }));
    await saveKey(key);
    notices.success('This browser can now sign you in', `Key ${key.fingerprint} was added to ${me.operator_id}.`);
    return true;
  } catch (err) {
    handleError(err, 'Adding a key for this browser');
    return false;
  }
}
