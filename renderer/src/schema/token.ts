// JSON Pointer tokens, without zod: the app shell names overlays' pointers before the contract's
// validator (validator.ts, a chunk of its own) has arrived.

/** Escapes one reference token for a JSON Pointer (RFC 6901). */
export function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}
