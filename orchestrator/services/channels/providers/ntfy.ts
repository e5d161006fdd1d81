// ntfy (ntfy.sh or self-hosted), published as JSON to the server root ("Publish as JSON"
// in ntfy's docs): the topic travels in the body, so any server path prefix keeps working.
import type { NtfyConfig } from '../../../../common/schemas/channels.js';
import type { Severity } from '../../../../common/schemas/events.js';
import type { ChannelProvider } from '../provider.js';
import { postJson } from './http.js';

export const NTFY_DEFAULT_SERVER = 'https://ntfy.sh';

/** ntfy priorities run 1 (min) to 5 (max, a long vibration burst); info stays at the default 3. */
export const NTFY_PRIORITY: Record<Severity, number> = { info: 3, warning: 4, critical: 5 };
/** Tags that match an emoji short code are shown as that emoji in front of the title. */
export const NTFY_TAGS: Record<Severity, string[]> = { info: [], warning: ['warning'], critical: ['rotating_light'] };

/** ntfy turns a message over 4096 bytes into an attachment (refused where attachments are off). */
const NTFY_MESSAGE_MAX_BYTES = 4096;

function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const budget = maxBytes - Buffer.byteLength('…');
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (bytes + n > budget) break;
    out += ch;
    bytes += n;
  }
  return `${out}…`;
}

export function ntfyServerRoot(serverUrl: string | undefined): string {
  return `${(serverUrl ?? NTFY_DEFAULT_SERVER).replace(/\/+$/, '')}/`;
}

export const ntfyProvider: ChannelProvider<'ntfy'> = {
  type: 'ntfy',
  async send(message, config: NtfyConfig, context) {
    const payload: Record<string, unknown> = {
      topic: config.topic,
      title: message.title,
      message: truncateBytes(message.text, NTFY_MESSAGE_MAX_BYTES),
      priority: NTFY_PRIORITY[message.severity],
      tags: NTFY_TAGS[message.severity],
    };
    if (message.link) payload.click = message.link;
    const headers: Record<string, string> = config.token ? { authorization: `Bearer ${config.token}` } : {};
    return postJson(ntfyServerRoot(config.server_url), JSON.stringify(payload), headers, context.signal);
  },
};
