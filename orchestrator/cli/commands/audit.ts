import { parseArgs } from 'node:util';
import type { AuditEvent } from '../../../common/schemas/audit.js';
import type { List } from '../../../common/schemas/shared.js';
import { CliError } from '../errors.js';
import { authenticatedClient, call, CONNECTION_OPTIONS } from '../session.js';
import { printTable } from '../table.js';

export const auditHelp = `Usage: corral audit <command>

Commands:
  list [--actor ID] [--action NAME|PREFIX*] [--target T] [--outcome success|denied|error]
       [--since ISO] [--until ISO] [--limit N] [--json]      most recent events first
  verify                                                      check the hash chain
  prune --before ISO                                          delete older events (Admin only)
  retention [DAYS]                                            show or set (Admin) retention in days; 0 keeps all

Options:
  --url URL, --fingerprint FP   as for corral api
  -h, --help                    show this help`;

export async function audit(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      actor: { type: 'string' },
      action: { type: 'string' },
      target: { type: 'string' },
      outcome: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      before: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      ...CONNECTION_OPTIONS,
    },
  });
  const [sub, arg] = positionals;
  if (values.help || !sub) return void console.log(auditHelp);
  const client = authenticatedClient(values);
  switch (sub) {
    case 'list': {
      const query = new URLSearchParams();
      for (const k of ['actor', 'action', 'target', 'outcome', 'since', 'until', 'limit'] as const) if (values[k]) query.set(k, values[k]);
      const page = (await call(client, 'GET', `/audit?${query}`)).body as List<AuditEvent>;
      if (values.json) return void console.log(JSON.stringify(page, null, 2));
      printTable(
        ['ID', 'TIME', 'ACTOR', 'ACTION', 'TARGET', 'OUTCOME'],
        page.items.map((e) => [String(e.id), e.time.replace('T', ' ').slice(0, 19), e.actor ?? `(${e.actor_type})`, e.action, e.target ?? '', e.outcome]),
      );
      if (page.next_cursor) console.log(`(more: narrow with --since/--until or raise --limit)`);
      return;
    }
    case 'verify': {
      const report = (await call(client, 'GET', '/audit/verify')).body as { ok: boolean; checked: number; first_bad_id: number | null; reason: string | null };
      if (report.ok) return void console.log(`Audit chain intact: ${report.checked} events checked.`);
      throw new CliError(`Audit chain BROKEN at event ${report.first_bad_id}: ${report.reason} (${report.checked} events fine before it)`);
    }
    case 'prune': {
      if (!values.before) throw new CliError('usage: corral audit prune --before 2026-01-01T00:00:00Z', 2);
      const res = (await call(client, 'DELETE', `/audit?before=${encodeURIComponent(values.before)}`)).body as { deleted: number };
      return void console.log(`Deleted ${res.deleted} events older than ${values.before}.`);
    }
    case 'retention': {
      if (arg === undefined) {
        const r = (await call(client, 'GET', '/audit/retention')).body as { days: number };
        return void console.log(r.days === 0 ? 'Audit events are kept forever.' : `Audit events are kept ${r.days} days.`);
      }
      const days = Number(arg);
      if (!Number.isInteger(days) || days < 0) throw new CliError('retention takes a whole number of days (0 keeps all)', 2);
      await call(client, 'PUT', '/audit/retention', { days });
      return void console.log(`Audit retention set to ${days === 0 ? 'forever' : `${days} days`}.`);
    }
    default:
      throw new CliError(`unknown command "audit ${sub}"; see corral audit --help`, 2);
  }
}
