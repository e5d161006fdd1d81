/** A copy backed by a plain ArrayBuffer, as WebCrypto's BufferSource wants. */
export function toBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(bytes.length));
  out.set(bytes);
  return out;
}

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return toBuffer(new TextEncoder().encode(text));
}
