import type { LiveEventMap, LiveEventType } from '../../common/schemas/events.js';
import type { DesktopNotice } from './channels/provider.js';

/** One open /api/v1/events response. */
export interface LiveConnection {
  operatorId: string;
  /** Writes one server-sent event; false when the socket is gone. */
  send<T extends LiveEventType>(type: T, data: LiveEventMap[T]): boolean;
  close(): void;
}

/** How many streams one operator may hold open (tabs, windows, scripts). */
export const MAX_STREAMS_PER_OPERATOR = 32;

/**
 * Who is listening on the live stream, and the fan-out to them: notifications go to
 * their recipients only, fleet changes to everyone. Nothing is buffered for a client
 * that is not connected: on reconnect the UI reads the current state over the API.
 */
export class LiveStream {
  private readonly connections = new Set<LiveConnection>();

  /** The route refuses past MAX_STREAMS_PER_OPERATOR before it answers (429). */
  add(connection: LiveConnection): void {
    this.connections.add(connection);
  }

  remove(connection: LiveConnection): void {
    this.connections.delete(connection);
  }

  countFor(operatorId: string): number {
    let n = 0;
    for (const c of this.connections) if (c.operatorId === operatorId) n++;
    return n;
  }

  toOperator<T extends LiveEventType>(operatorId: string, type: T, data: LiveEventMap[T]): void {
    for (const c of this.connections) if (c.operatorId === operatorId) this.write(c, type, data);
  }

  broadcast<T extends LiveEventType>(type: T, data: LiveEventMap[T]): number {
    let sent = 0;
    for (const c of this.connections) if (this.write(c, type, data)) sent++;
    return sent;
  }

  /** A `desktop` channel's notice, for browsers to show with the Notification API; answers how many streams took it. */
  desktop(notice: DesktopNotice): number {
    return this.broadcast('desktop', notice);
  }

  /** Ends an operator's streams (removed, or signed out everywhere). */
  closeOperator(operatorId: string): void {
    for (const c of [...this.connections]) if (c.operatorId === operatorId) this.drop(c);
  }

  closeAll(): void {
    for (const c of [...this.connections]) this.drop(c);
  }

  private write<T extends LiveEventType>(c: LiveConnection, type: T, data: LiveEventMap[T]): boolean {
    if (c.send(type, data)) return true;
    this.drop(c);
    return false;
  }

  private drop(c: LiveConnection): void {
    this.connections.delete(c);
    c.close();
  }
}
