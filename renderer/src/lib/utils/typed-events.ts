/**
 * A typed event map: handlers per message type, each called with that type's payload.
 * One handler that throws does not stop the others.
 */
export class TypedEvents<M extends object> {
  private readonly handlers = new Map<keyof M, Set<(data: never) => void>>();

  /** Calls `handler` for every `type` message; returns the unsubscribe. */
  on<T extends keyof M>(type: T, handler: (data: M[T]) => void): () => void {
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  emit<T extends keyof M>(type: T, data: M[T]): void {
    for (const handler of [...(this.handlers.get(type) ?? [])] as ((data: M[T]) => void)[]) {
      try {
        handler(data);
      } catch (err) {
        console.error(`handler for ${String(type)}`, err);
      }
    }
  }
}
