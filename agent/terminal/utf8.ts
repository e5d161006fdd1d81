// Terminal output leaves in chunks that never cut a UTF-8 sequence in two (STYLE.md "The
// terminal path", after Tabby's utfSplitter): a renderer decoding chunk by chunk would
// otherwise show replacement characters where a read happened to end.

function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return 3;
  if (lead >= 0xc0) return 2;
  return 1;
}

/**
 * How many leading bytes of buf end on a character boundary: all of them, unless the
 * last 1-3 bytes start a multi-byte sequence that is not complete yet. Bytes that are not
 * UTF-8 at all are never held back (a binary stream must not stall).
 */
export function completeUtf8Length(buf: Uint8Array): number {
  const len = buf.length;
  for (let i = len - 1; i >= 0 && i >= len - 4; i--) {
    const b = buf[i]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: look further back
    if (b < 0xc0 || b > 0xf7) return len; // ASCII or invalid lead: nothing to wait for
    return len - i < sequenceLength(b) ? i : len;
  }
  return len;
}

/**
 * Splits buf into pieces of at most max bytes, each ending on a character boundary when
 * the data is UTF-8 (a cut moves back over at most 3 continuation bytes).
 */
export function splitUtf8(buf: Buffer, max: number): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  while (start < buf.length) {
    let end = Math.min(buf.length, start + max);
    if (end < buf.length) {
      const floor = Math.max(start + 1, end - 3);
      let cut = end;
      while (cut > floor && (buf[cut]! & 0xc0) === 0x80) cut--;
      if ((buf[cut]! & 0xc0) !== 0x80) end = cut;
    }
    out.push(buf.subarray(start, end));
    start = end;
  }
  return out;
}
