import type { List } from '../../../../common/schemas/shared.js';
import type { Channel, ChannelCreate, ChannelUpdate, Delivery, DeliveryQuery, SendOutcome } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { confirmAction } from '../state/confirm.svelte.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { handleError } from '../utils/handle-error.js';
import type { LoadOptions } from './notifications.service.js';

export const DELIVERIES_PAGE_SIZE = 50;

function report(err: unknown, context: string, quiet: boolean | undefined): void {
  if (quiet && !(err instanceof ApiError && err.status === 401)) return;
  handleError(err, context);
}

export async function loadChannels(options: LoadOptions = {}): Promise<Channel[] | undefined> {
  try {
    const items: Channel[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.listChannels({ limit: 1000, cursor });
      items.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && items.length < 10_000);
    return items;
  } catch (err) {
    report(err, 'Loading channels', options.quiet);
    return undefined;
  }
}

/** The channel, null when there is none with that id (deleted), undefined when the read failed. */
export async function loadChannel(id: string, options: LoadOptions = {}): Promise<Channel | null | undefined> {
  try {
    return await api.getChannel(id);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 400)) return null;
    report(err, 'Loading the channel', options.quiet);
    return undefined;
  }
}

export async function createChannel(request: ChannelCreate, form: FormErrors): Promise<Channel | undefined> {
  try {
    const created = await api.createChannel(request);
    form.clear();
    notices.success(`Channel ${created.name} created`, 'Press Test to send it a test notification.');
    return created;
  } catch (err) {
    handleError(err, 'Creating the channel', form);
    return undefined;
  }
}

export async function updateChannel(channel: Channel, request: ChannelUpdate, form: FormErrors): Promise<Channel | undefined> {
  try {
    const updated = await api.updateChannel(channel.id, request);
    form.clear();
    notices.success(`Channel ${updated.name} saved`);
    return updated;
  } catch (err) {
    handleError(err, `Saving ${channel.name}`, form);
    return undefined;
  }
}

export async function setChannelEnabled(channel: Channel, enabled: boolean): Promise<Channel | undefined> {
  try {
    return await api.updateChannel(channel.id, { enabled });
  } catch (err) {
    handleError(err, `${enabled ? 'Enabling' : 'Disabling'} ${channel.name}`);
    return undefined;
  }
}

export async function deleteChannel(channel: Channel): Promise<boolean> {
  const ok = await confirmAction({
    title: `Delete channel ${channel.name}?`,
    message: 'Its queued deliveries and its delivery history go with it. Notifications stay in the inbox.',
    confirmLabel: 'Delete channel',
    danger: true,
  });
  if (!ok) return false;
  try {
    await api.deleteChannel(channel.id);
    notices.success(`Channel ${channel.name} deleted`);
    return true;
  } catch (err) {
    handleError(err, `Deleting ${channel.name}`);
    return false;
  }
}

/** Sends a test through the channel at once; the outcome says what the receiver answered. */
export async function testChannel(channel: Channel): Promise<SendOutcome | undefined> {
  try {
    return await api.testChannel(channel.id);
  } catch (err) {
    handleError(err, `Testing ${channel.name}`);
    return undefined;
  }
}

export async function loadDeliveries(channelId: string, query: DeliveryQuery, options: LoadOptions = {}): Promise<List<Delivery> | undefined> {
  try {
    return await api.listDeliveries(channelId, query);
  } catch (err) {
    report(err, 'Loading the delivery history', options.quiet);
    return undefined;
  }
}
