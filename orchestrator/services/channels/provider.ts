// The one interface every notification channel type implements (one file per type in
// providers/, collected by registry.ts), and what a send is given.
import type { ChannelConfigByType, ChannelType, SendOutcome } from '../../../common/schemas/channels.js';
import type { EventKind, FleetEvent, Severity } from '../../../common/schemas/events.js';

/** What one delivery carries, rendered when it was queued (so a retry sends the same text). */
export interface ChannelMessage {
  /** The delivery's id: receivers can use it to drop a repeat (X-Corral-Delivery). */
  delivery_id: number;
  /** event: one event or a batch of them; digest: what a maintenance window held back; test. */
  kind: 'event' | 'digest' | 'test';
  /** The highest severity among the events (info for a test). */
  severity: Severity;
  /** One line: the event's title, "5 events: ...", "Maintenance ended: ..." or "Corral test message". */
  title: string;
  /** The full text as chat channels show it: the channel's template applied, or the default text. */
  text: string;
  /** The events it carries (none for a test). */
  events: FleetEvent[];
  /** Link into the web UI when the orchestrator knows its public address, else null. */
  link: string | null;
  /** The channel's name, for the message's footer. */
  channel: string;
  created_at: string;
}

/** A native or in-browser notification, for the `desktop` channel. */
export interface DesktopNotice {
  title: string;
  body: string;
  severity: Severity;
  kind: EventKind | 'test';
}

/** Where `desktop` notifications can be shown; both are optional. */
export interface DesktopOutlet {
  /** The Electron shell's native notification; false when the platform has none. */
  native?: (notice: DesktopNotice) => boolean;
  /** Pushes the notice to every browser with the live stream open; answers how many. */
  browsers: (notice: DesktopNotice) => number;
}

export interface SendContext {
  /** Aborted when the send takes longer than the queue allows (10 s) or the orchestrator stops. */
  signal: AbortSignal;
  desktop: DesktopOutlet;
}

/** A send's outcome; `retry: false` says that trying again later cannot help (e.g. nobody to show a desktop notice to). */
export interface ProviderOutcome extends SendOutcome {
  retry?: boolean;
}

export interface ChannelProvider<T extends ChannelType = ChannelType> {
  readonly type: T;
  /** Never throws: every failure comes back as {ok: false, detail} naming what went wrong. */
  send(message: ChannelMessage, config: ChannelConfigByType[T], context: SendContext): Promise<ProviderOutcome>;
}
