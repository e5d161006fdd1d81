import { OPERATION_KINDS, OPERATION_STATUSES, type OperationKind, type OperationStatus } from '../../../../common/schemas/state.js';
import type { RouteQuery } from '../state/router.svelte.js';
import type { OperationFilters } from '../state/operations.svelte.js';

/** Operation filters from the address (#/operations?node=web-01&status=failed); unknown values are ignored. */
export function filtersFromQuery(query: RouteQuery): OperationFilters {
  const kind = (OPERATION_KINDS as readonly string[]).includes(query.kind ?? '') ? (query.kind as OperationKind) : '';
  const status = (OPERATION_STATUSES as readonly string[]).includes(query.status ?? '') ? (query.status as OperationStatus) : '';
  const since = query.since && !Number.isNaN(Date.parse(query.since)) ? query.since : '';
  return { node: query.node ?? '', kind, status, assignment: query.assignment ?? '', since };
}

/** The address form of the filters: only those set. */
export function filtersToQuery(filters: OperationFilters): RouteQuery {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== '')) as RouteQuery;
}
