import { parseArgs } from 'node:util';
import { fetchCertificate, normaliseFingerprint } from '../../../common/node/pinned-tls.js';
import type { ChallengeResponse, SessionResponse } from '../../../common/schemas/auth.js';
import { ApiClient } from '../client.js';
import { clearCredentials, loadCredentials, saveCredentials } from '../credentials.js';
import { CliError } from '../errors.js';
import { promptLine } from '../prompt.js';
import { authenticatedClient, call } from '../session.js';
import { chooseSigner } from '../signer.js';

export const loginHelp = `Usage: corral login [--url URL] [--operator ID] [--key FILE] [--fingerprint SHA256]

Signs in by signing a server challenge with an OpenSSH Ed25519 key, and stores
the session token in ~/.config/corral/credentials.json (0600).

Options:
  --url URL            orchestrator base URL (default: last used, CORRAL_URL, or https://localhost:7390)
  --operator ID        operator id to sign in as (default: last used, CORRAL_OPERATOR, or admin)
  --key FILE           private key file (default ~/.ssh/id_ed25519). With SSH_AUTH_SOCK set, ssh-agent
                       signs when it holds that key (or, without --key, its first Ed25519 key).
                       Encrypted keys ask for the passphrase (or read CORRAL_KEY_PASSPHRASE).
  --fingerprint FP     SHA-256 fingerprint of the orchestrator certificate, as corral serve prints it.
                       Without it, the certificate is shown and you are asked to trust it once.
  -h, --help           show this help`;

async function trustedFingerprint(url: URL, given: string | undefined, saved: string | undefined): Promise<string | undefined> {
  if (url.protocol !== 'https:') return undefined;
  if (given) return normaliseFingerprint(given);
  if (saved) return saved;
  const { fingerprint } = await fetchCertificate(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port || 443));
  if (!process.stdin.isTTY) {
    throw new CliError(`the orchestrator certificate is ${fingerprint}; if that is what corral serve printed, run again with --fingerprint ${fingerprint}`);
  }
  process.stderr.write(`The orchestrator at ${url.origin} presents a certificate with SHA-256 fingerprint\n  ${fingerprint}\n`);
  const answer = await promptLine('Does it match the one corral serve printed? Trust it [y/N]: ');
  if (!/^y(es)?$/i.test(answer)) throw new CliError('not trusted; nothing was sent');
  return fingerprint;
}

export async function login(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      operator: { type: 'string' },
      key: { type: 'string' },
      fingerprint: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void console.log(loginHelp);
  const saved = loadCredentials();
  const url = new URL(values.url ?? process.env.CORRAL_URL ?? saved?.url ?? 'https://localhost:7390');
  const origin = url.origin;
  const operatorId = values.operator ?? process.env.CORRAL_OPERATOR ?? saved?.operator_id ?? 'admin';
  const fingerprint = await trustedFingerprint(url, values.fingerprint ?? process.env.CORRAL_FINGERPRINT, saved?.url === origin ? saved.fingerprint : undefined);
  const signer = await chooseSigner(values.key);
  const client = new ApiClient({ url: origin, fingerprint });
  const challenge = (await call(client, 'POST', '/auth/challenge', { operator_id: operatorId })).body as ChallengeResponse;
  const signature = await signer.signSshsig(challenge.message);
  const session = (await call(client, 'POST', '/auth/verify', { operator_id: operatorId, nonce: challenge.nonce, signature }))
    .body as SessionResponse;
  const file = saveCredentials({ url: origin, fingerprint, operator_id: operatorId, token: session.token, expires_at: session.expires_at });
  console.log(`Signed in to ${origin} as ${session.operator.operator_id} (${session.operator.role}) with ${signer.source}.`);
  console.log(`Session valid until ${session.expires_at}; token saved in ${file}.`);
}

export const logoutHelp = `Usage: corral logout

Ends the stored session on the orchestrator and forgets the token.`;

export async function logout(argv: string[]): Promise<void> {
  if (argv.includes('-h') || argv.includes('--help')) return void console.log(logoutHelp);
  const saved = loadCredentials();
  if (!saved) return void console.log('Not signed in.');
  try {
    await call(authenticatedClient({}), 'DELETE', '/auth/session');
  } finally {
    clearCredentials();
  }
  console.log(`Signed out of ${saved.url}.`);
}

export const whoamiHelp = `Usage: corral whoami

Shows the operator, role and expiry of the stored session.`;

export async function whoami(argv: string[]): Promise<void> {
  if (argv.includes('-h') || argv.includes('--help')) return void console.log(whoamiHelp);
  const res = await call(authenticatedClient({}), 'GET', '/auth/session');
  const me = res.body as { operator: { operator_id: string; role: string; name: string }; expires_at: string; key_fingerprint: string };
  console.log(`${me.operator.operator_id} (${me.operator.name}), role ${me.operator.role}, key ${me.key_fingerprint}, session until ${me.expires_at}`);
}
