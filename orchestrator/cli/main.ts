import { PACKAGE_VERSION } from '../../common/node/package-root.js';
import { agents, agentsHelp } from './commands/agents.js';
import { api, apiHelp } from './commands/api.js';
import { audit, auditHelp } from './commands/audit.js';
import { login, loginHelp, logout, logoutHelp, whoami, whoamiHelp } from './commands/login.js';
import { operators, operatorsHelp } from './commands/operators.js';
import { serve, serveHelp } from './commands/serve.js';
import { CliError } from './errors.js';

const commands: Record<string, { run: (argv: string[]) => Promise<void>; help: string; summary: string }> = {
  serve: { run: serve, help: serveHelp, summary: 'run the orchestrator (API, web UI, agent hub)' },
  login: { run: login, help: loginHelp, summary: 'sign in with an OpenSSH Ed25519 key or ssh-agent' },
  logout: { run: logout, help: logoutHelp, summary: 'end the stored session' },
  whoami: { run: whoami, help: whoamiHelp, summary: 'show who the stored session belongs to' },
  api: { run: api, help: apiHelp, summary: 'make a raw authenticated API call' },
  agents: { run: agents, help: agentsHelp, summary: 'list, approve, tag and discover agents' },
  operators: { run: operators, help: operatorsHelp, summary: 'list, add and remove operators' },
  audit: { run: audit, help: auditHelp, summary: 'query, verify and prune the audit log' },
};


const mainHelp = `Usage: corral <command> [options]

Corral runs a small fleet of machines. Commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}
  help CMD   show help for a command

Run "corral <command> --help" for a command's options.`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help') {
    console.log(mainHelp);
    return 0;
  }
  if (name === '-v' || name === '--version' || name === 'version') {
    console.log(PACKAGE_VERSION);
    return 0;
  }
  if (name === 'help') {
    const cmd = rest[0] ? commands[rest[0]] : undefined;
    console.log(cmd ? cmd.help : mainHelp);
    return rest[0] && !cmd ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    console.error(`corral: unknown command "${name}"\n\n${mainHelp}`);
    return 2;
  }
  try {
    await command.run(rest);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    const e = err as Error & { code?: string; exitCode?: number };
    if (err instanceof CliError) console.error(`corral ${name}: ${err.message}`);
    else if (e.code?.startsWith('ERR_PARSE_ARGS')) console.error(`corral ${name}: ${e.message}\n\n${command.help}`);
    else if (e.code === 'ECONNREFUSED') console.error(`corral ${name}: cannot reach the orchestrator (${e.message})`);
    else console.error(`corral ${name}: ${e.message}`);
    return e.exitCode ?? (e.code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1);
  }
}

// Long-running commands (serve) keep the process alive; the rest exit with their code.
const code = await main(process.argv.slice(2));
if (process.argv[2] !== 'serve' || code !== 0) process.exitCode = code;
