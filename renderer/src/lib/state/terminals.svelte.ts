import type { TerminalListQuery, TerminalSession, TerminalState } from '../api/client.js';
import { loadTerminals, TERMINALS_PAGE_SIZE } from '../services/terminals.service.js';
import { KeysetList } from './keyset-list.svelte.js';

export const TERMINALS_REFRESH_MS = 5000;

export interface TerminalFilters {
  state: TerminalState | '';
  node: string;
}

/** The sessions page's list, most recent first, refreshed while the page is visible. */
export class TerminalsState extends KeysetList<TerminalSession, TerminalFilters, TerminalListQuery> {
  constructor() {
    super({
      pageSize: TERMINALS_PAGE_SIZE,
      refreshMs: TERMINALS_REFRESH_MS,
      filters: { state: '', node: '' },
      same: (a, b) => a.state === b.state && a.node === b.node,
      query: (f) => ({ state: f.state || undefined, node_id: f.node.trim() || undefined }),
      read: loadTerminals,
      key: (s) => s.session_id,
    });
  }

  /** A session an action changed (closed), in place ahead of the next read. */
  replace(session: TerminalSession): void {
    this.items = this.items.map((s) => (s.session_id === session.session_id ? session : s));
  }
}
