// Discord webhook: one embed coloured by severity. Discord answers 204 without a body.
import type { DiscordConfig } from '../../../../common/schemas/channels.js';
import type { Severity } from '../../../../common/schemas/events.js';
import type { ChannelProvider } from '../provider.js';
import { postJson, truncate } from './http.js';

// Discord refuses the whole message (400) when an embed goes over these, so we cut first.
export const DISCORD_TITLE_MAX = 256;
export const DISCORD_DESCRIPTION_MAX = 4096;
const DISCORD_FOOTER_MAX = 2048;

export const DISCORD_COLORS: Record<Severity, number> = {
  info: 0x3b82f6,
  warning: 0xf59e0b,
  critical: 0xdc2626,
};

export const discordProvider: ChannelProvider<'discord'> = {
  type: 'discord',
  async send(message, config: DiscordConfig, context) {
    const embed: Record<string, unknown> = {
      title: truncate(message.title, DISCORD_TITLE_MAX),
      description: truncate(message.text, DISCORD_DESCRIPTION_MAX),
      color: DISCORD_COLORS[message.severity],
      timestamp: message.created_at,
      footer: { text: truncate(`Corral · ${message.channel}`, DISCORD_FOOTER_MAX) },
    };
    if (message.link) embed.url = message.link;
    const payload: Record<string, unknown> = {
      embeds: [embed],
      // An event body quoting "@everyone" or a role must not ping the whole server.
      allowed_mentions: { parse: [] },
    };
    if (config.username) payload.username = config.username;
    return postJson(config.webhook_url, JSON.stringify(payload), {}, context.signal);
  },
};
