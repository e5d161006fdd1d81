import { EVENT_KINDS, type EventKind } from '../../../../common/schemas/events.js';

/** Event kinds grouped by their prefix (agent, apply, drift, ...), in EVENT_KINDS order, for pickers. */
export const EVENT_KIND_GROUPS: [string, EventKind[]][] = (() => {
  const groups = new Map<string, EventKind[]>();
  for (const kind of EVENT_KINDS) {
    const group = kind.split('.')[0]!;
    groups.set(group, [...(groups.get(group) ?? []), kind]);
  }
  return [...groups];
})();
