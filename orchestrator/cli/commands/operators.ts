import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { Operator } from '../../../common/schemas/operators.js';
import type { List } from '../../../common/schemas/shared.js';
import { CliError } from '../errors.js';
import { authenticatedClient, call, CONNECTION_OPTIONS } from '../session.js';
import { printTable } from '../table.js';

export const operatorsHelp = `Usage: corral operators <command>

Commands:
  list                                   list operators
  get ID                                 show one operator as JSON
  add ID --role ROLE --key FILE.pub ...  add an operator (Admin only); --key may repeat and
         [--name NAME]                   also takes a key line ("ssh-ed25519 AAAA... comment")
  remove ID                              remove an operator and end their sessions (Admin only)

Roles: viewer (read only), operator (everything but Admin-only operations), admin.

Options:
  --url URL, --fingerprint FP            as for corral api
  -h, --help                             show this help`;

function keyLine(arg: string): string {
  if (/^ssh-/.test(arg.trim())) return arg.trim();
  const file = arg.replace(/^~(?=$|\/)/, os.homedir());
  try {
    return readFileSync(file, 'utf8').trim().split('\n')[0]!;
  } catch {
    throw new CliError(`--key ${arg}: not a key line and not a readable file`);
  }
}

export async function operators(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string' },
      key: { type: 'string', multiple: true },
      name: { type: 'string' },
      json: { type: 'boolean' },
      ...CONNECTION_OPTIONS,
    },
  });
  const [sub, id, ...rest] = positionals;
  if (values.help || !sub) return void console.log(operatorsHelp);
  if (rest.length) throw new CliError(`unexpected arguments: ${rest.join(' ')}`, 2);
  const client = authenticatedClient(values);
  switch (sub) {
    case 'list': {
      const items: Operator[] = [];
      let cursor: string | null = null;
      do {
        const page = (await call(client, 'GET', `/operators?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body as List<Operator>;
        items.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      if (values.json) return void console.log(JSON.stringify(items, null, 2));
      printTable(
        ['ID', 'ROLE', 'KEYS', 'CREATED', 'NAME'],
        items.map((o) => [o.operator_id, o.role, String(o.public_keys.length), o.created_at.slice(0, 19).replace('T', ' '), o.name]),
      );
      return;
    }
    case 'get':
      if (!id) throw new CliError('usage: corral operators get ID', 2);
      return void console.log(JSON.stringify((await call(client, 'GET', `/operators/${encodeURIComponent(id)}`)).body, null, 2));
    case 'add': {
      if (!id || !values.role || !values.key?.length) throw new CliError('usage: corral operators add ID --role ROLE --key FILE.pub [--name NAME]', 2);
      const body = { operator_id: id, role: values.role, public_keys: values.key.map(keyLine), ...(values.name ? { name: values.name } : {}) };
      const op = (await call(client, 'POST', '/operators', body)).body as Operator;
      return void console.log(`Added ${op.operator_id} (${op.role}) with ${op.public_keys.length} key(s).`);
    }
    case 'remove':
      if (!id) throw new CliError('usage: corral operators remove ID', 2);
      await call(client, 'DELETE', `/operators/${encodeURIComponent(id)}`);
      return void console.log(`Removed ${id}; their sessions have ended.`);
    default:
      throw new CliError(`unknown command "operators ${sub}"; see corral operators --help`, 2);
  }
}
