// Email over SMTP with nodemailer: one connection per send (no pool), so a changed
// config or a dead server never leaves a stale connection behind.
import { createTransport } from 'nodemailer';
import type { EmailConfig } from '../../../../common/schemas/channels.js';
import type { ChannelMessage, ChannelProvider, ProviderOutcome } from '../provider.js';

/** Each SMTP step (connect, greeting, any reply) gets this long; the queue's signal bounds the whole send. */
const SMTP_TIMEOUT_MS = 10_000;

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function htmlBody(message: ChannelMessage): string {
  const link = message.link ? `<p><a href="${escapeHtml(message.link)}">Open in Corral</a></p>` : '';
  return (
    `<!doctype html><html><body style="font-family:sans-serif">` +
    `<h3>${escapeHtml(message.title)}</h3>` +
    `<pre style="font-family:inherit;white-space:pre-wrap">${escapeHtml(message.text)}</pre>${link}` +
    `<p style="color:#666;font-size:12px">Sent by Corral to the channel ${escapeHtml(message.channel)}.</p>` +
    `</body></html>`
  );
}

/** "250 2.0.0 Ok: queued" -> 250; null when the reply has no code. */
export function smtpReplyCode(reply: string | undefined): number | null {
  const m = /^([2-5]\d\d)\b/.exec(reply?.trim() ?? '');
  return m ? Number(m[1]) : null;
}

interface SmtpError {
  message?: string;
  code?: string;
  responseCode?: number;
}

/** nodemailer passes socket and TLS errors through raw ("self-signed certificate", an OpenSSL line); say what they mean. */
function describeSmtpError(e: SmtpError, config: EmailConfig): string {
  const where = `${config.host}:${config.port}`;
  const message = (e.message ?? 'unknown error').trim();
  if (/ECONNREFUSED/.test(message)) return `cannot connect to ${where}: connection refused (ECONNREFUSED)`;
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return `cannot resolve the SMTP host ${config.host}`;
  if (/wrong version number|packet length too long|unknown protocol/i.test(message)) {
    return `TLS with ${where} failed: the server does not speak TLS from the first byte on this port (port 587 usually wants security starttls)`;
  }
  if (/certificate|self.signed|unable to verify/i.test(message)) {
    return `TLS with ${where} failed: ${message}${config.allow_invalid_certificate ? '' : ' (allow_invalid_certificate accepts such a certificate)'}`;
  }
  return message;
}

export const emailProvider: ChannelProvider<'email'> = {
  type: 'email',
  async send(message, config: EmailConfig, context): Promise<ProviderOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let transport: ReturnType<typeof createTransport> | undefined;
    try {
      transport = createTransport({
        host: config.host,
        port: config.port,
        secure: config.security === 'tls',
        // starttls: refuse to go on in clear text when the server does not offer STARTTLS.
        requireTLS: config.security === 'starttls',
        ignoreTLS: config.security === 'none',
        tls: { rejectUnauthorized: !config.allow_invalid_certificate },
        ...(config.username ? { auth: { user: config.username, pass: config.password ?? '' } } : {}),
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      });
      const info = await transport.sendMail({
        from: { name: 'Corral', address: config.from },
        to: config.to,
        subject: `[Corral] ${message.title.replace(/[\r\n]+/g, ' ')}`,
        text: message.text,
        html: htmlBody(message),
        headers: { 'X-Corral-Delivery': String(message.delivery_id) },
        // nodemailer closes the connection and fails with EABORT when this fires.
        signal: context.signal,
      });
      const reply = info.response.trim();
      const refused = info.rejected;
      const detail = refused.length > 0 ? `${reply}; refused recipients: ${refused.join(', ')}` : reply || 'accepted';
      return { ok: true, detail, status_code: smtpReplyCode(reply), duration_ms: elapsed() };
    } catch (err) {
      const e = (err ?? {}) as SmtpError;
      const status = typeof e.responseCode === 'number' ? e.responseCode : null;
      let detail = describeSmtpError(e, config);
      if (context.signal.aborted) {
        const reason = context.signal.reason instanceof Error ? context.signal.reason.message : 'aborted';
        detail = `no answer from ${config.host}:${config.port} in time: gave up (${reason})`;
      }
      // A permanent SMTP refusal (5xx) or a rejected login will be refused again; anything else
      // (a network error, a 4xx "try later", a timeout) may pass on the next attempt.
      const permanent = (status !== null && status >= 500) || e.code === 'EAUTH';
      return { ok: false, detail, status_code: status, duration_ms: elapsed(), retry: !permanent };
    } finally {
      transport?.close();
    }
  },
};
