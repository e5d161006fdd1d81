import { X509Certificate } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';

/** Normalises "aa:bb..", "AABB..", "SHA256:AA:BB.." to colon-separated upper-case hex. */
export function normaliseFingerprint(fp: string): string {
  const hex = fp.replace(/^sha256:/i, '').replace(/[^0-9a-f]/gi, '').toUpperCase();
  return hex.match(/.{2}/g)?.join(':') ?? '';
}

export class FingerprintMismatch extends Error {
  constructor(readonly expected: string, readonly actual: string) {
    super(`the server certificate fingerprint is ${actual}, but ${expected} was expected; refusing to talk to it`);
  }
}

/**
 * Fetches the server's certificate without sending any application data, so
 * that nothing (tokens included) reaches a server before its fingerprint is
 * checked. Callers then trust exactly that certificate as the only CA.
 */
export function fetchCertificate(host: string, port: number, timeoutMs = 10_000): Promise<{ pem: string; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: false });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`timed out connecting to ${host}:${port}`)));
    socket.once('secureConnect', () => {
      const raw = socket.getPeerCertificate(false).raw;
      socket.end();
      if (!raw) return reject(new Error(`${host}:${port} sent no certificate`));
      const cert = new X509Certificate(raw);
      resolve({ pem: cert.toString(), fingerprint: cert.fingerprint256 });
    });
    socket.once('error', reject);
  });
}

/** TLS options that accept only the pinned certificate (host name checks are moot with a pin). */
export async function pinnedTlsOptions(host: string, port: number, expected: string): Promise<tls.ConnectionOptions> {
  const { pem, fingerprint } = await fetchCertificate(host, port);
  if (normaliseFingerprint(fingerprint) !== normaliseFingerprint(expected)) throw new FingerprintMismatch(normaliseFingerprint(expected), fingerprint);
  return {
    ca: [pem],
    checkServerIdentity: (_host, cert) =>
      normaliseFingerprint(cert.fingerprint256) === normaliseFingerprint(expected) ? undefined : new FingerprintMismatch(expected, cert.fingerprint256),
  };
}
