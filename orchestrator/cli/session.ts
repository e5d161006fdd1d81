import { ApiClient, describeProblem, type ApiResponse } from './client.js';
import { loadCredentials } from './credentials.js';
import { CliError } from './errors.js';

/** Options every command that talks to the API accepts, for node:util parseArgs. */
export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  fingerprint: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface ConnectionFlags {
  url?: string;
  fingerprint?: string;
}

/** A client for the orchestrator named by flags, the environment or the last `corral login`. */
export function authenticatedClient(flags: ConnectionFlags): ApiClient {
  const saved = loadCredentials();
  const url = flags.url ?? process.env.CORRAL_URL ?? saved?.url;
  const token = process.env.CORRAL_TOKEN ?? saved?.token;
  if (!url || !token) throw new CliError('not signed in: run `corral login --url URL --operator ID` first (or set CORRAL_URL and CORRAL_TOKEN)');
  const fingerprint = flags.fingerprint ?? process.env.CORRAL_FINGERPRINT ?? (saved?.url === url ? saved.fingerprint : undefined);
  return new ApiClient({ url, token, fingerprint });
}

/** Returns the body of a 2xx answer, or throws the problem as one line. */
export async function call(client: ApiClient, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const res = await client.request(method, path, body);
  if (res.status >= 400) throw new CliError(describeProblem(res));
  return res;
}
