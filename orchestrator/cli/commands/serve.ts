import { parseArgs } from 'node:util';
import { startOrchestrator } from '../../start.js';
import { CliError } from '../errors.js';

export const serveHelp = `Usage: corral serve [options]

Runs the orchestrator: management API, web UI and background jobs, in the foreground.

Options:
  --port N            port for the API, web UI and agent link (default 7390; 0 picks a free one)
  --bind ADDR         address to listen on (default 0.0.0.0)
  --data-dir DIR      data directory (default ~/.local/share/corral)
  --http              serve plain HTTP instead of HTTPS (loopback or trusted networks only)
  --admin-key FILE    OpenSSH Ed25519 public key (.pub) of the first admin; skips the setup link
  --log-level LEVEL   fatal, error, warn, info, debug or trace (default info)
  -h, --help          show this help

Settings can also come from CORRAL_* environment variables and corral.yaml in the
data directory (see the README); flags win over both.`;

export async function serve(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      bind: { type: 'string' },
      'data-dir': { type: 'string' },
      http: { type: 'boolean' },
      'admin-key': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return void console.log(serveHelp);
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new CliError(`--port must be 0-65535, got ${values.port}`);
  const handle = await startOrchestrator({
    port,
    bind: values.bind,
    dataDir: values['data-dir'],
    http: values.http,
    adminKey: values['admin-key'],
    logLevel: values['log-level'],
    banner: true,
  });
  let stopping = false;
  const stop = (signal: string) => {
    // A second Ctrl+C (the terminal and npm both forward one) must not cut the shutdown short.
    if (stopping) return;
    stopping = true;
    handle.app.log.info({ signal }, 'shutting down');
    handle.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
