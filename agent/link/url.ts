// From the orchestrator's base URL (what operators type and what discovery carries)
// to the WebSocket URL of the agent link, plus the pieces certificate pinning needs.
import { AGENT_LINK_PATH } from '../../common/protocol.js';
import { normaliseFingerprint } from '../../common/node/pinned-tls.js';

export interface LinkTarget {
  /** ws(s)://host:port/agent/v1 */
  url: string;
  /** Host name or address without IPv6 brackets, as tls.connect wants it. */
  host: string;
  port: number;
  secure: boolean;
}

/** Checks an orchestrator base URL and returns it normalised (scheme://host:port); throws an Error naming the problem. */
export function normaliseOrchestratorUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`"${text}" is not a URL; expected the orchestrator's base URL, e.g. https://orchestrator:7390`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`"${text}" must start with https:// (or http:// for an orchestrator started with --http)`);
  if (url.username || url.password) throw new Error(`"${text}" must not carry a user name or password`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new Error(`"${text}" must be the orchestrator's base URL without a path (the agent adds ${AGENT_LINK_PATH} itself)`);
  }
  return url.origin;
}

export function linkTarget(base: string): LinkTarget {
  const url = new URL(normaliseOrchestratorUrl(base));
  const secure = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  return {
    url: `${secure ? 'wss' : 'ws'}://${url.host}${AGENT_LINK_PATH}`,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    secure,
  };
}

/** Normalises a certificate fingerprint (colon hex, SHA256:...) and checks it is 32 bytes of SHA-256. */
export function parseCertFingerprint(text: string): string {
  const fp = normaliseFingerprint(text);
  if (!/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/.test(fp)) {
    throw new Error(`"${text}" is not a SHA-256 certificate fingerprint (64 hex digits, usually written AA:BB:...; \`corral serve\` prints it at start)`);
  }
  return fp;
}
