import type { DeliveryStatus } from '../../../../common/schemas/channels.js';
import type { Delivery, DeliveryQuery } from '../api/client.js';
import { DELIVERIES_PAGE_SIZE, loadDeliveries } from '../services/channels.service.js';
import { KeysetList } from './keyset-list.svelte.js';

/** Retries change a delivery's status without a pushed message, so the history re-reads on a timer. */
const DELIVERIES_REFRESH_MS = 10_000;

export interface DeliveryFilters {
  status: DeliveryStatus | '';
}

/** One channel's delivery history, newest first. */
export class DeliveryListState extends KeysetList<Delivery, DeliveryFilters, DeliveryQuery> {
  constructor(readonly channelId: string) {
    super({
      pageSize: DELIVERIES_PAGE_SIZE,
      refreshMs: DELIVERIES_REFRESH_MS,
      filters: { status: '' },
      same: (a, b) => a.status === b.status,
      query: (f) => ({ status: f.status || undefined }),
      read: (query, options) => loadDeliveries(channelId, query, options),
      key: (d) => String(d.id),
    });
  }
}
