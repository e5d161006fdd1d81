// Generic webhook: the ChannelMessage as JSON, optionally signed.
//
// How a receiver verifies X-Corral-Signature (same scheme as Stripe and GitHub):
//   1. take X-Corral-Timestamp (unix seconds) and refuse it when far from now (e.g. > 5 min),
//      which stops a captured request from being replayed later;
//   2. compute hex(HMAC-SHA256(secret, `${timestamp}.${raw request body}`)) over the body
//      bytes exactly as received (before any JSON parsing);
//   3. compare it with the header's value after "sha256=" in constant time
//      (crypto.timingSafeEqual, hmac.compare_digest).
// X-Corral-Delivery stays the same across retries of one delivery, so receivers can drop repeats.
import { createHmac } from 'node:crypto';
import type { WebhookConfig } from '../../../../common/schemas/channels.js';
import type { ChannelMessage, ChannelProvider } from '../provider.js';
import { postJson } from './http.js';

/** Headers Corral sets itself; config.headers cannot replace them (validation refuses them too). */
export function isReservedHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n.startsWith('x-corral-') || ['content-type', 'content-length', 'host', 'transfer-encoding', 'connection'].includes(n);
}

export function webhookSignature(secret: string, timestamp: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** What X-Corral-Event says: the (first) event's kind, or the delivery kind when it is not about one event. */
export function webhookEventName(message: ChannelMessage): string {
  if (message.kind !== 'event') return message.kind;
  return message.events[0]?.kind ?? 'event';
}

export const webhookProvider: ChannelProvider<'webhook'> = {
  type: 'webhook',
  async send(message, config: WebhookConfig, context) {
    // Spelled out rather than JSON.stringify(message) so the documented payload does not grow by accident.
    const body = JSON.stringify({
      delivery_id: message.delivery_id,
      kind: message.kind,
      severity: message.severity,
      title: message.title,
      text: message.text,
      events: message.events,
      link: message.link,
      channel: message.channel,
      created_at: message.created_at,
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(config.headers ?? {})) if (!isReservedHeader(name)) headers[name] = value;
    headers['X-Corral-Delivery'] = String(message.delivery_id);
    headers['X-Corral-Event'] = webhookEventName(message);
    headers['X-Corral-Timestamp'] = timestamp;
    if (config.secret) headers['X-Corral-Signature'] = webhookSignature(config.secret, timestamp, body);
    return postJson(config.url, body, headers, context.signal);
  },
};
