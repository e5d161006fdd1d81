// Which provider sends for which channel type, and the one entry point the delivery queue
// and POST /channels/{id}/test use: sendThrough never throws and always times the send.
import { CHANNEL_TYPES, type ChannelConfigByType, type ChannelType } from '../../../common/schemas/channels.js';
import { validateChannelConfig } from './channel-config.js';
import type { ChannelMessage, ChannelProvider, ProviderOutcome, SendContext } from './provider.js';
import { desktopProvider } from './providers/desktop.js';
import { discordProvider } from './providers/discord.js';
import { emailProvider } from './providers/email.js';
import { ntfyProvider } from './providers/ntfy.js';
import { slackProvider } from './providers/slack.js';
import { webhookProvider } from './providers/webhook.js';

export class ChannelRegistry {
  // Keyed by type; register() only accepts a provider whose `type` is its key, so the cast in providerFor holds.
  private readonly providers = new Map<ChannelType, ChannelProvider<ChannelType>>();

  /** Throws on a second provider for the same type: two would silently shadow each other. */
  register<T extends ChannelType>(provider: ChannelProvider<T>): this {
    if (this.providers.has(provider.type)) throw new Error(`a provider for channel type ${provider.type} is already registered`);
    this.providers.set(provider.type, provider as unknown as ChannelProvider<ChannelType>);
    return this;
  }

  has(type: string): type is ChannelType {
    return this.providers.has(type as ChannelType);
  }

  /** Throws when nothing sends for this type (a programming error: every ChannelType has a built-in). */
  providerFor<T extends ChannelType>(type: T): ChannelProvider<T> {
    const provider = this.providers.get(type);
    if (!provider) throw new Error(`no provider for channel type ${type}`);
    return provider as unknown as ChannelProvider<T>;
  }

  types(): ChannelType[] {
    return [...this.providers.keys()];
  }
}

/** A registry holding the six built-in providers. */
export function builtinRegistry(): ChannelRegistry {
  return new ChannelRegistry()
    .register(webhookProvider)
    .register(slackProvider)
    .register(discordProvider)
    .register(ntfyProvider)
    .register(emailProvider)
    .register(desktopProvider);
}

export const channelRegistry: ChannelRegistry = builtinRegistry();

export function providerFor<T extends ChannelType>(type: T): ChannelProvider<T> {
  return channelRegistry.providerFor(type);
}

/**
 * Sends one message through the provider for `type`. Never throws: an unknown type or a
 * stored config that no longer validates comes back as {ok: false, retry: false}, a
 * provider that throws as {ok: false, retry: true}. duration_ms is the whole call's.
 */
export async function sendThrough(
  type: ChannelType,
  message: ChannelMessage,
  config: unknown,
  context: SendContext,
  registry: ChannelRegistry = channelRegistry,
): Promise<ProviderOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (!(CHANNEL_TYPES as readonly string[]).includes(type) || !registry.has(type)) {
    return { ok: false, detail: `unknown channel type ${String(type)}`, status_code: null, duration_ms: elapsed(), retry: false };
  }
  // A stored config is validated when saved; checking again keeps a provider from crashing on
  // rows written by an older version or edited by hand, and says which field is wrong.
  const errors = validateChannelConfig(type, config);
  if (errors.length > 0) {
    const detail = `the channel's settings are invalid: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`;
    return { ok: false, detail, status_code: null, duration_ms: elapsed(), retry: false };
  }
  try {
    const outcome = await registry.providerFor(type).send(message, config as ChannelConfigByType[typeof type], context);
    return { ...outcome, duration_ms: elapsed() };
  } catch (err) {
    // Providers promise not to throw; this is the net under a bug, reported rather than crashing the queue.
    const detail = `the ${type} provider failed unexpectedly: ${err instanceof Error ? err.message : String(err)}`;
    return { ok: false, detail, status_code: null, duration_ms: elapsed(), retry: true };
  }
}
