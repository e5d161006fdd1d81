// A bounded FIFO that drops its oldest items when full: metrics taken while the
// link is down wait here, and a long outage costs a fixed amount of memory.

export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private head = 0;
  private length = 0;
  /** Items dropped because the buffer was full, since it was made. */
  dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.length;
  }

  /** Appends an item; returns how many old items were dropped to make room (0 or 1). */
  push(item: T): number {
    if (this.length === this.capacity) {
      this.items[this.head] = item;
      this.head = (this.head + 1) % this.capacity;
      this.dropped++;
      return 1;
    }
    this.items[(this.head + this.length) % this.capacity] = item;
    this.length++;
    return 0;
  }

  /** The oldest `n` items (or fewer), oldest first, without removing them. */
  peek(n: number): T[] {
    const count = Math.min(n, this.length);
    const out: T[] = [];
    for (let i = 0; i < count; i++) out.push(this.items[(this.head + i) % this.capacity] as T);
    return out;
  }

  /** Removes and returns the oldest `n` items (or fewer), oldest first. */
  shift(n: number): T[] {
    const out = this.peek(n);
    for (let i = 0; i < out.length; i++) this.items[(this.head + i) % this.capacity] = undefined;
    this.head = (this.head + out.length) % this.capacity;
    this.length -= out.length;
    return out;
  }

  /**
   * Puts items taken with shift() back in front (a send failed). Newer items win:
   * if they no longer all fit, the oldest of the returned ones are dropped and counted.
   */
  unshift(items: T[]): number {
    const room = this.capacity - this.length;
    const keep = items.slice(Math.max(0, items.length - room));
    const lost = items.length - keep.length;
    this.dropped += lost;
    for (let i = keep.length - 1; i >= 0; i--) {
      this.head = (this.head - 1 + this.capacity) % this.capacity;
      this.items[this.head] = keep[i];
      this.length++;
    }
    return lost;
  }
}
