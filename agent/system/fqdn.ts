// The fully qualified domain name, as the system resolves it. Only a name with a dot
// counts: a bare host name means the domain is unknown, and then fqdn is left out.
import dns from 'node:dns/promises';
import os from 'node:os';
import { run } from './run.js';

function qualified(name: string | undefined): string | undefined {
  const n = name?.trim().toLowerCase().replace(/\.$/, '');
  return n && n.includes('.') && !n.endsWith('.localdomain') && n !== 'localhost.localdomain' ? n : undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    promise.then(
      (v) => (clearTimeout(timer), resolve(v)),
      () => (clearTimeout(timer), resolve(undefined)),
    );
  });
}

export async function readFqdn(timeoutMs = 1000): Promise<string | undefined> {
  // `hostname -f` asks the resolver the way the rest of the system does (nsswitch, /etc/hosts).
  const fromTool = qualified((await run('hostname', ['-f'], timeoutMs))?.stdout.split('\n')[0]);
  if (fromTool) return fromTool;
  // No `hostname` tool (Alpine's busybox has no -f): look the name up, then back.
  const host = os.hostname();
  const lookedUp = await withTimeout(dns.lookup(host), timeoutMs);
  if (!lookedUp) return undefined;
  const back = await withTimeout(dns.lookupService(lookedUp.address, 0), timeoutMs);
  return qualified(back?.hostname);
}
