import http from 'node:http';
import https from 'node:https';
import type tls from 'node:tls';
import { pinnedTlsOptions } from '../../common/node/pinned-tls.js';
import { API_PREFIX } from '../../common/version.js';

export interface ApiResponse {
  status: number;
  contentType: string;
  body: unknown;
  text: string;
}

export interface ClientOptions {
  url: string;
  /** Pinned SHA-256 of the orchestrator certificate; required for https. */
  fingerprint?: string;
  token?: string;
}

/** A small HTTP client for the management API that pins the orchestrator's certificate. */
export class ApiClient {
  private tlsOptions: tls.ConnectionOptions | undefined;
  private readonly base: URL;

  constructor(private readonly options: ClientOptions) {
    this.base = new URL(options.url);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw new Error(`--url must be http(s)://host:port, got ${options.url}`);
  }

  private async tls(): Promise<tls.ConnectionOptions> {
    if (this.tlsOptions) return this.tlsOptions;
    if (!this.options.fingerprint) {
      throw new Error(`${this.base.origin} uses a self-signed certificate: pass --fingerprint (shown by corral serve and GET /api/v1/status)`);
    }
    this.tlsOptions = await pinnedTlsOptions(this.base.hostname.replace(/^\[|\]$/g, ''), Number(this.base.port || 443), this.options.fingerprint);
    return this.tlsOptions;
  }

  async request(method: string, apiPath: string, body?: unknown): Promise<ApiResponse> {
    const target = new URL(apiPath.startsWith('/api/') ? apiPath : API_PREFIX + (apiPath.startsWith('/') ? apiPath : '/' + apiPath), this.base);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    const secure = target.protocol === 'https:';
    const extra = secure ? await this.tls() : {};
    const lib = secure ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(target, { method: method.toUpperCase(), headers, ...extra, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = String(res.headers['content-type'] ?? '');
          let parsed: unknown = text;
          if (contentType.includes('json') && text) {
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = text;
            }
          }
          resolve({ status: res.statusCode ?? 0, contentType, body: parsed, text });
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${target.origin} did not answer in 30 s`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
}

/** Turns a problem+json answer into one readable line. */
export function describeProblem(res: ApiResponse): string {
  const p = res.body as { title?: string; detail?: string; code?: string } | string;
  if (typeof p === 'object' && p) return `${res.status} ${p.title ?? ''}${p.detail ? `: ${p.detail}` : ''}${p.code ? ` [${p.code}]` : ''}`;
  return `${res.status} ${String(p).slice(0, 200)}`;
}
