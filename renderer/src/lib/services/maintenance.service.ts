import type { MaintenanceWindow, WindowCreate } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { confirmAction } from '../state/confirm.svelte.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { formatDateTime } from '../utils/format.js';
import { handleError } from '../utils/handle-error.js';
import type { LoadOptions } from './notifications.service.js';

export async function loadWindows(options: LoadOptions = {}): Promise<MaintenanceWindow[] | undefined> {
  try {
    const items: MaintenanceWindow[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.listWindows({ limit: 1000, cursor });
      items.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && items.length < 10_000);
    return items;
  } catch (err) {
    if (!options.quiet || (err instanceof ApiError && err.status === 401)) handleError(err, 'Loading maintenance windows');
    return undefined;
  }
}

export async function createWindow(request: WindowCreate, form: FormErrors): Promise<MaintenanceWindow | undefined> {
  try {
    const created = await api.createWindow(request);
    form.clear();
    notices.success(
      `Maintenance window ${created.name} ${created.status === 'active' ? 'started' : 'scheduled'}`,
      created.status === 'active' ? `Until ${formatDateTime(created.ends_at)}.` : `From ${formatDateTime(created.starts_at)} to ${formatDateTime(created.ends_at)}.`,
    );
    return created;
  } catch (err) {
    handleError(err, 'Creating the maintenance window', form);
    return undefined;
  }
}

/** Ends an active window now (PUT ends_at = now), after asking. */
export async function endWindowNow(window: MaintenanceWindow): Promise<MaintenanceWindow | undefined> {
  const ok = await confirmAction({
    title: `End ${window.name} now?`,
    message: `Notifications about its ${window.matching_agents === 1 ? 'agent' : 'agents'} go to channels again, and each channel gets a summary of what was held back.`,
    confirmLabel: 'End now',
  });
  if (!ok) return undefined;
  try {
    const ended = await api.updateWindow(window.id, { ends_at: new Date().toISOString() });
    notices.success(`Maintenance window ${window.name} ended`);
    return ended;
  } catch (err) {
    handleError(err, `Ending ${window.name}`);
    return undefined;
  }
}

export async function deleteWindow(window: MaintenanceWindow): Promise<boolean> {
  const ok = await confirmAction({
    title: `Delete maintenance window ${window.name}?`,
    message: window.status === 'active' ? 'It is active: it ends first, so what it held back is still summarised.' : 'The window and its schedule are removed.',
    confirmLabel: 'Delete window',
    danger: true,
  });
  if (!ok) return false;
  try {
    await api.deleteWindow(window.id);
    notices.success(`Maintenance window ${window.name} deleted`);
    return true;
  } catch (err) {
    handleError(err, `Deleting ${window.name}`);
    return false;
  }
}
