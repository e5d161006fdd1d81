import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';

export interface TlsMaterial {
  key: string;
  cert: string;
  /** SHA-256 of the certificate, colon-separated upper-case hex, as browsers and openssl show it. */
  fingerprint: string;
}

function localAddresses(): string[] {
  const out = new Set(['127.0.0.1', '::1']);
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) out.add(a.address.split('%')[0]!);
  return [...out];
}

/** Loads the orchestrator's certificate, making a self-signed one on first start. */
export async function ensureCertificate(dataDir: string): Promise<TlsMaterial> {
  const dir = path.join(dataDir, 'tls');
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  if (!existsSync(keyFile) || !existsSync(certFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const host = os.hostname();
    const notBefore = new Date(Date.now() - 60_000);
    const notAfter = new Date(notBefore.getTime() + 10 * 365 * 24 * 3600_000);
    const pems = await generate([{ name: 'commonName', value: `Corral orchestrator ${host}` }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notBeforeDate: notBefore,
      notAfterDate: notAfter,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 2, value: host },
            ...localAddresses().map((ip) => ({ type: 7 as const, ip })),
          ],
        },
      ],
    });
    writeFileSync(keyFile, pems.private, { mode: 0o600 });
    writeFileSync(certFile, pems.cert, { mode: 0o644 });
  }
  const key = readFileSync(keyFile, 'utf8');
  const cert = readFileSync(certFile, 'utf8');
  return { key, cert, fingerprint: new X509Certificate(cert).fingerprint256 };
}
