// Command-line flags of `corral-agent` (names fixed by DESIGN.md) and the help text.
import { parseArgs } from 'node:util';
import type { AgentFlags } from './config.js';

export const HELP = `Usage: corral-agent [options]

Runs the Corral agent in the foreground: links this machine to an orchestrator,
reports its attributes and metrics, and answers discovery probes.

Options:
  --orchestrator URL      orchestrator base URL: https://host:7390 (or http://... for an
                          orchestrator started with --http); the agent adds /agent/v1
  --fingerprint SHA256    the orchestrator certificate's SHA-256 fingerprint (AA:BB:...),
                          pinned for https; \`corral serve\` prints it at start
  --node-id ID            this machine's node id (default: the host name, lower-cased)
  --state-dir DIR         identity key and state (default /var/lib/corral-agent as root,
                          else ~/.local/state/corral-agent)
  --metrics-interval S    seconds between metrics samples (default 10)
  --discovery-port N      UDP port for discovery probes (default 7391; 0 turns it off)
  --config FILE           YAML settings file (default <state-dir>/agent.yaml)
  --log-level LEVEL       fatal, error, warn, info, debug, trace or silent (default info)
  -V, --version           print the agent version
  -h, --help              show this help

Without --orchestrator the agent waits for a discovery probe and joins the orchestrator
that sent it (the agent then shows as pending there). Settings also come from
CORRAL_AGENT_* environment variables and the config file; flags win over both.
See docs/agent.md.`;

export class UsageError extends Error {}

export interface CliRequest {
  help: boolean;
  version: boolean;
  flags: AgentFlags;
}

export function parseCli(argv: string[]): CliRequest {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        orchestrator: { type: 'string' },
        fingerprint: { type: 'string' },
        'node-id': { type: 'string' },
        'state-dir': { type: 'string' },
        'metrics-interval': { type: 'string' },
        'discovery-port': { type: 'string' },
        config: { type: 'string' },
        'log-level': { type: 'string' },
        version: { type: 'boolean', short: 'V' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    // parseArgs messages are already one clear sentence ("Unknown option '--x'").
    throw new UsageError((err as Error).message.split('\n')[0]!);
  }
  return {
    help: values.help ?? false,
    version: values.version ?? false,
    flags: {
      orchestrator: values.orchestrator,
      fingerprint: values.fingerprint,
      nodeId: values['node-id'],
      stateDir: values['state-dir'],
      metricsInterval: values['metrics-interval'],
      discoveryPort: values['discovery-port'],
      config: values.config,
      logLevel: values['log-level'],
    },
  };
}
