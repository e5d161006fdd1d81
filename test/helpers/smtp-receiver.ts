// A real SMTP server on 127.0.0.1 (smtp-server, the nodemailer project's) that the email
// channel talks to over a socket: STARTTLS, implicit TLS or plain, with AUTH checked
// against a user list. It records what it accepted.
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

export type SmtpMode = 'starttls' | 'tls' | 'plain';

export interface ReceivedMail {
  /** MAIL FROM address. */
  from: string;
  /** RCPT TO addresses. */
  to: string[];
  /** The whole message (headers and body) as received. */
  raw: string;
  /** Who logged in, when someone did. */
  user: string | null;
  /** Whether the session was encrypted (implicit TLS or after STARTTLS). */
  secure: boolean;
}

export interface SmtpReceiverOptions {
  /** starttls: plain greeting that offers STARTTLS; tls: TLS from the first byte; plain: no TLS offered at all. */
  mode: SmtpMode;
  /** username -> password; when given, AUTH PLAIN/LOGIN is required before MAIL FROM. */
  users?: Record<string, string>;
}

export interface SmtpReceiver {
  host: string;
  port: number;
  /** The self-signed certificate the server presents (PEM), null in plain mode. */
  cert: string | null;
  messages: ReceivedMail[];
  /** Connection-level errors the server saw (a client that dropped a TLS handshake, ...). */
  errors: Error[];
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

let certCache: Promise<{ key: string; cert: string }> | undefined;

function selfSigned(): Promise<{ key: string; cert: string }> {
  certCache ??= generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
  }).then((p) => ({ key: p.private, cert: p.cert }));
  return certCache;
}

export async function startSmtpReceiver(options: SmtpReceiverOptions): Promise<SmtpReceiver> {
  const { mode, users } = options;
  const tls = mode === 'plain' ? null : await selfSigned();
  const messages: ReceivedMail[] = [];
  const waiters = new Set<() => void>();

  const server = new SMTPServer({
    secure: mode === 'tls',
    ...(tls ? { key: tls.key, cert: tls.cert } : {}),
    // "plain" is a server that cannot encrypt at all, to check that requireTLS refuses it.
    ...(mode === 'plain' ? { disabledCommands: users ? ['STARTTLS'] : ['STARTTLS', 'AUTH'], hideSTARTTLS: true, allowInsecureAuth: true } : {}),
    ...(mode !== 'plain' && !users ? { disabledCommands: ['AUTH'] } : {}),
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: !users,
    logger: false,
    closeTimeout: 200,
    onAuth(auth, _session, callback) {
      if (users && auth.username !== undefined && users[auth.username] === auth.password) {
        callback(null, { user: auth.username });
        return;
      }
      // smtp-server answers this as "535 Authentication failed".
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: typeof session.user === 'string' ? session.user : null,
          secure: session.secure,
        });
        for (const w of [...waiters]) w();
        callback();
      });
    },
  });

  const errors: Error[] = [];
  // smtp-server re-emits client-side failures (e.g. a client refusing our self-signed
  // certificate) as 'error'; unhandled, that would crash the test process.
  server.on('error', (err) => errors.push(err));

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    cert: tls?.cert ?? null,
    messages,
    errors,
    waitFor(n, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(messages.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`SMTP receiver: ${messages.length} of ${n} messages after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
