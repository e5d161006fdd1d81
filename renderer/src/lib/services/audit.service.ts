import type { List } from '../../../../common/schemas/shared.js';
import type { AuditChainResult, AuditEvent, AuditQuery } from '../api/client.js';
import { api } from '../api/index.js';
import { confirmAction } from '../state/confirm.svelte.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { formatDateTime } from '../utils/format.js';
import { handleError } from '../utils/handle-error.js';

export const AUDIT_PAGE_SIZE = 50;

export async function loadAudit(query: AuditQuery, form?: FormErrors): Promise<List<AuditEvent> | undefined> {
  try {
    const page = await api.listAudit({ limit: AUDIT_PAGE_SIZE, ...query });
    form?.clear();
    return page;
  } catch (err) {
    handleError(err, 'Loading the audit log', form);
    return undefined;
  }
}

export async function verifyAuditChain(): Promise<AuditChainResult | undefined> {
  try {
    return await api.verifyAudit();
  } catch (err) {
    handleError(err, 'Verifying the audit chain');
    return undefined;
  }
}

export async function loadRetention(): Promise<number | undefined> {
  try {
    return (await api.getAuditRetention()).days;
  } catch (err) {
    handleError(err, 'Reading the audit retention');
    return undefined;
  }
}

export async function saveRetention(days: number, form: FormErrors): Promise<number | undefined> {
  try {
    const saved = await api.setAuditRetention({ days });
    form.clear();
    notices.success('Retention saved', saved.days === 0 ? 'Audit events are kept forever.' : `Audit events older than ${saved.days} days are pruned daily.`);
    return saved.days;
  } catch (err) {
    handleError(err, 'Saving the audit retention', form);
    return undefined;
  }
}

export async function pruneAudit(beforeIso: string, form: FormErrors): Promise<boolean> {
  const ok = await confirmAction({
    title: 'Prune the audit log?',
    message: `Every audit event before ${formatDateTime(beforeIso)} is deleted for good. The prune itself is recorded, and the hash chain restarts from it.`,
    confirmLabel: 'Delete events',
    danger: true,
  });
  if (!ok) return false;
  try {
    const result = await api.pruneAudit(beforeIso);
    form.clear();
    notices.success(`Pruned ${result.deleted} audit event${result.deleted === 1 ? '' : 's'}`, `Events before ${formatDateTime(result.before)} are gone.`);
    return true;
  } catch (err) {
    handleError(err, 'Pruning the audit log', form);
    return false;
  }
}
