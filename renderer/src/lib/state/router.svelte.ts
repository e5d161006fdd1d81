export type RouteQuery = Record<string, string>;

function parse(hash: string): { path: string; query: RouteQuery } {
  const raw = hash.replace(/^#/, '') || '/';
  const mark = raw.indexOf('?');
  const path = mark < 0 ? raw : raw.slice(0, mark);
  const query = Object.fromEntries(new URLSearchParams(mark < 0 ? '' : raw.slice(mark + 1)));
  return { path: path.startsWith('/') ? path : `/${path}`, query };
}

export function routeHref(path: string, query: RouteQuery = {}): string {
  const text = Object.entries(query)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return `#${path}${text ? `?${text}` : ''}`;
}

/** Hash routing (#/operators, #/setup?token=...): the orchestrator serves one index.html. */
export class Router {
  path = $state('/');
  query = $state<RouteQuery>({});

  constructor() {
    this.read();
    window.addEventListener('hashchange', () => this.read());
  }

  go(path: string, query: RouteQuery = {}): void {
    const href = routeHref(path, query);
    if (location.hash === href) this.read();
    else location.hash = href;
  }

  /** Navigates without a history entry (redirects, dropping a used setup token). */
  replace(path: string, query: RouteQuery = {}): void {
    history.replaceState(history.state, '', routeHref(path, query));
    this.read();
  }

  private read(): void {
    const { path, query } = parse(location.hash);
    this.path = path;
    this.query = query;
  }
}

export const router = new Router();
