import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describeProblem } from '../client.js';
import { CliError } from '../errors.js';
import { authenticatedClient, CONNECTION_OPTIONS } from '../session.js';

export const apiHelp = `Usage: corral api METHOD PATH [JSON | @FILE | -]

Makes one authenticated call to the management API and prints the answer.
PATH is relative to /api/v1 (e.g. /operators) unless it starts with /api/.
The body is a JSON argument, @FILE to read it from a file, or - for standard input.

Options:
  --url URL           orchestrator base URL (default: the one from corral login)
  --fingerprint FP    certificate fingerprint, if not the stored one
  -i, --include       print the HTTP status line first
  -h, --help          show this help

Exits 0 on 2xx, 1 otherwise (the problem+json body is still printed).

Examples:
  corral api GET /status
  corral api GET '/audit?limit=5&action=operator.*'
  corral api POST /operators '{"operator_id":"ana","role":"operator","public_keys":["ssh-ed25519 AAAA..."]}'`;

function readBody(arg: string | undefined): string | undefined {
  if (arg === undefined) return undefined;
  if (arg === '-') return readFileSync(0, 'utf8');
  if (arg.startsWith('@')) return readFileSync(arg.slice(1), 'utf8');
  return arg;
}

export async function api(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      include: { type: 'boolean', short: 'i' },
      ...CONNECTION_OPTIONS,
    },
  });
  if (values.help) return void console.log(apiHelp);
  const [method, path, bodyArg, ...rest] = positionals;
  if (!method || !path || rest.length) throw new CliError('usage: corral api METHOD PATH [JSON | @FILE | -]  (see corral api --help)', 2);
  if (!/^(GET|POST|PUT|PATCH|DELETE)$/i.test(method)) throw new CliError(`unknown method ${method}: use GET, POST, PUT, PATCH or DELETE`, 2);
  const body = readBody(bodyArg);
  if (body !== undefined) {
    try {
      JSON.parse(body);
    } catch (err) {
      throw new CliError(`the body is not valid JSON: ${(err as Error).message}`, 2);
    }
  }
  const res = await authenticatedClient(values).request(method, path, body);
  if (values.include) console.log(`HTTP ${res.status} ${res.contentType}`);
  if (res.text) console.log(typeof res.body === 'string' ? res.body : JSON.stringify(res.body, null, 2));
  if (res.status >= 400) {
    process.stderr.write(describeProblem(res) + '\n');
    process.exitCode = 1;
  }
}
