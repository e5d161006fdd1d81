// Slack incoming webhook (also what Mattermost and Rocket.Chat accept): one mrkdwn text.
// Slack answers 200 "ok", or 4xx with a word such as "invalid_token" or "no_service".
import type { SlackConfig } from '../../../../common/schemas/channels.js';
import type { ChannelProvider } from '../provider.js';
import { postJson, truncate } from './http.js';

/** Slack reads &, < and > as markup (<url|label>, <@user>); event text must not ping or link by accident. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack truncates text beyond 40,000 characters; cutting it ourselves keeps the end marker visible. */
const SLACK_TEXT_MAX = 40_000;

export const slackProvider: ChannelProvider<'slack'> = {
  type: 'slack',
  async send(message, config: SlackConfig, context) {
    const payload: Record<string, string> = {
      text: truncate(`*${slackEscape(message.title)}*\n${slackEscape(message.text)}`, SLACK_TEXT_MAX),
    };
    if (config.channel) payload.channel = config.channel;
    if (config.username) payload.username = config.username;
    return postJson(config.webhook_url, JSON.stringify(payload), {}, context.signal);
  },
};
