import { parseArgs } from 'node:util';
import type { Agent } from '../../../common/schemas/agents.js';
import type { DiscoveredAgent } from '../../../common/schemas/discovery.js';
import type { List } from '../../../common/schemas/shared.js';
import { CliError } from '../errors.js';
import { authenticatedClient, call, CONNECTION_OPTIONS } from '../session.js';
import { printTable } from '../table.js';

export const agentsHelp = `Usage: corral agents <command>

Commands:
  list [--status pending|accepted|rejected] [--selector SEL] [--online | --offline] [--json]
                                  list agents (selector: role=web,env in (prod,staging),!legacy)
  get ID                          one agent as JSON
  attributes ID                   the agent's attribute map as JSON
  accept ID...                    approve pending (or re-accept rejected) agents
  reject ID...                    reject pending agents, or revoke accepted ones (their link closes)
  delete ID...                    remove rejected agents' records
  tag ID KEY=VALUE...             set tags (other tags stay)
  untag ID KEY...                 remove tags
  retag ID [KEY=VALUE...]         replace all tags with exactly these
  discover [--wait MS] [--target IP]...
                                  broadcast a discovery probe and list what answered

Options:
  --url URL, --fingerprint FP     as for corral api
  -h, --help                      show this help`;

function pairs(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of args) {
    const eq = a.indexOf('=');
    if (eq < 1) throw new CliError(`expected KEY=VALUE, got "${a}"`, 2);
    out[a.slice(0, eq)] = a.slice(eq + 1);
  }
  return out;
}

function ago(iso: string | null): string {
  if (!iso) return '-';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.round(s / 60)}m ago` : s < 86400 ? `${Math.round(s / 3600)}h ago` : `${Math.round(s / 86400)}d ago`;
}

export async function agents(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      status: { type: 'string' },
      selector: { type: 'string' },
      online: { type: 'boolean' },
      offline: { type: 'boolean' },
      json: { type: 'boolean' },
      wait: { type: 'string' },
      target: { type: 'string', multiple: true },
      ...CONNECTION_OPTIONS,
    },
  });
  const [sub, id, ...rest] = positionals;
  if (values.help || !sub) return void console.log(agentsHelp);
  const client = authenticatedClient(values);
  const node = (what: string) => {
    if (!id) throw new CliError(`usage: corral agents ${what}`, 2);
    return encodeURIComponent(id);
  };
  switch (sub) {
    case 'list': {
      const query = new URLSearchParams({ limit: '1000' });
      if (values.status) query.set('status', values.status);
      if (values.selector) query.set('selector', values.selector);
      if (values.online || values.offline) query.set('online', String(Boolean(values.online)));
      const items: Agent[] = [];
      let cursor: string | null = null;
      do {
        if (cursor) query.set('cursor', cursor);
        const page = (await call(client, 'GET', `/agents?${query}`)).body as List<Agent>;
        items.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      if (values.json) return void console.log(JSON.stringify(items, null, 2));
      printTable(
        ['NODE', 'STATUS', 'ONLINE', 'HOST', 'OS', 'CPU', 'LAST SEEN', 'TAGS'],
        items.map((a) => [
          a.node_id,
          a.status,
          a.online ? 'yes' : 'no',
          a.attributes.hostname ?? '-',
          [a.attributes.distribution, a.attributes.distribution_version].filter(Boolean).join(' ') || a.attributes.os || '-',
          a.metrics ? `${a.metrics.cpu_percent.toFixed(0)}%` : '-',
          ago(a.last_seen),
          Object.entries(a.tags).map(([k, v]) => `${k}=${v}`).join(','),
        ]),
      );
      const pending = items.filter((a) => a.status === 'pending');
      for (const a of pending) console.log(`pending ${a.node_id}: key ${a.key_fingerprint} (compare before: corral agents accept ${a.node_id})`);
      return;
    }
    case 'get':
      return void console.log(JSON.stringify((await call(client, 'GET', `/agents/${node('get ID')}`)).body, null, 2));
    case 'attributes':
      return void console.log(JSON.stringify((await call(client, 'GET', `/agents/${node('attributes ID')}/attributes`)).body, null, 2));
    case 'accept':
    case 'reject':
    case 'delete': {
      const ids = [id, ...rest].filter((x): x is string => Boolean(x));
      if (!ids.length) throw new CliError(`usage: corral agents ${sub} ID...`, 2);
      let failed = 0;
      for (const nodeId of ids) {
        try {
          if (sub === 'delete') await call(client, 'DELETE', `/agents/${encodeURIComponent(nodeId)}`);
          else await call(client, 'POST', `/agents/${encodeURIComponent(nodeId)}`, { status: sub === 'accept' ? 'accepted' : 'rejected' });
          console.log(`${nodeId}: ${sub === 'delete' ? 'deleted' : sub === 'accept' ? 'accepted' : 'rejected'}`);
        } catch (err) {
          failed++;
          console.error(`${nodeId}: ${(err as Error).message}`);
        }
      }
      if (failed) throw new CliError(`${failed} of ${ids.length} failed`);
      return;
    }
    case 'tag':
    case 'retag': {
      const tags = pairs(rest);
      if (sub === 'tag' && !rest.length) throw new CliError('usage: corral agents tag ID KEY=VALUE...', 2);
      const path = `/agents/${node(`${sub} ID KEY=VALUE...`)}/tags`;
      let result: unknown;
      if (sub === 'retag') result = (await call(client, 'PUT', path, tags)).body;
      else for (const [k, v] of Object.entries(tags)) result = (await call(client, 'PUT', `${path}/${encodeURIComponent(k)}`, { value: v })).body;
      return void console.log(JSON.stringify((result as { tags: unknown }).tags));
    }
    case 'untag': {
      if (!rest.length) throw new CliError('usage: corral agents untag ID KEY...', 2);
      let result: unknown;
      for (const k of rest) result = (await call(client, 'DELETE', `/agents/${node('untag ID KEY...')}/tags/${encodeURIComponent(k)}`)).body;
      return void console.log(JSON.stringify((result as { tags: unknown }).tags));
    }
    case 'discover': {
      const body = { ...(values.wait ? { wait_ms: Number(values.wait) } : {}), ...(values.target ? { targets: values.target } : {}) };
      const res = (await call(client, 'POST', '/discover', body)).body as { sent_to: string[]; items: DiscoveredAgent[] };
      if (values.json) return void console.log(JSON.stringify(res, null, 2));
      console.log(`probed ${res.sent_to.join(', ') || 'nothing'}; ${res.items.length} answered`);
      if (res.items.length) {
        printTable(
          ['NODE', 'HOST', 'ADDRESS', 'ENROLLED', 'KNOWN', 'KEY'],
          res.items.map((d) => [d.node_id, d.hostname, d.address, d.enrolled ? 'yes' : 'no', d.known ? 'yes' : 'no', d.key_fingerprint]),
        );
      }
      return;
    }
    default:
      throw new CliError(`unknown command "agents ${sub}"; see corral agents --help`, 2);
  }
}
