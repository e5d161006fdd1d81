// The `corral-agent` command: flags -> settings -> startAgent, and a clean stop on SIGINT/SIGTERM.
// Exit codes: 0 stopped, 1 failed while running or starting, 2 bad flags or settings.
import { PACKAGE_VERSION } from '../common/node/package-root.js';
import { AgentError, startAgent } from './agent.js';
import { HELP, parseCli, UsageError } from './cli.js';
import { ConfigError, resolveAgentConfig } from './config.js';
import { IdentityError } from './identity.js';
import { createLogger } from './logger.js';

function usage(message: string): never {
  console.error(`corral-agent: ${message} (see corral-agent --help)`);
  process.exit(2);
}

async function main(): Promise<void> {
  let request;
  let config;
  try {
    request = parseCli(process.argv.slice(2));
    if (request.help) return void console.log(HELP);
    if (request.version) return void console.log(PACKAGE_VERSION);
    config = resolveAgentConfig(request.flags);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) usage(err.message);
    throw err;
  }
  const log = createLogger(config.logLevel);
  for (const warning of config.warnings) log.warn(warning);
  if (config.configFile) log.info({ file: config.configFile }, 'read settings file');

  let handle;
  try {
    handle = await startAgent({
      stateDir: config.stateDir,
      orchestrator: config.orchestrator,
      fingerprint: config.fingerprint,
      nodeId: config.nodeId,
      metricsIntervalS: config.metricsIntervalS,
      discoveryPort: config.discoveryPort,
      logger: log,
    });
  } catch (err) {
    // AgentError: the settings leave the agent nothing to do; anything else failed while starting.
    if (err instanceof AgentError) usage(err.message);
    if (err instanceof IdentityError) log.fatal(err.message);
    else log.fatal({ err }, 'cannot start');
    process.exit(1);
  }

  let stopping = false;
  const stop = (signal: string) => {
    // systemd and a terminal may both deliver a signal; the first one starts the stop.
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    handle.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(`corral-agent: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
