// JSON Pointer (RFC 6901) reads and writes into the screen state. Writes mutate, so they are
// meant for an immer draft.

/** Splits a pointer into unescaped reference tokens; "" is the whole document. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`invalid JSON Pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

function arrayIndex(token: string): number | null {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : null;
}

/** The value at `pointer`, or undefined when any step is missing. */
export function getPointer(document: unknown, pointer: string): unknown {
  let current: unknown = document;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(current)) {
      const index = arrayIndex(token);
      if (index === null) return undefined;
      current = current[index];
    } else if (isContainer(current)) {
      const record = current as Record<string, unknown>;
      current = Object.hasOwn(record, token) ? record[token] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

/**
 * Writes `value` at `pointer`, creating missing objects on the way (an array grows with "-" or
 * the next index). Returns false when the path runs through a scalar and nothing was written.
 */
export function setPointer(document: Record<string, unknown>, pointer: string, value: unknown): boolean {
  const tokens = parsePointer(pointer);
  const last = tokens.pop();
  if (last === undefined) return false;
  let current: Record<string, unknown> | unknown[] = document;
  for (const token of tokens) {
    const next: unknown = Array.isArray(current) ? current[arrayIndex(token) ?? -1] : current[token];
    if (isContainer(next)) {
      current = next;
      continue;
    }
    if (next !== undefined) return false;
    const created: Record<string, unknown> = {};
    if (Array.isArray(current)) {
      const index = token === "-" ? current.length : arrayIndex(token);
      if (index === null || index > current.length) return false;
      current[index] = created;
    } else {
      current[token] = created;
    }
    current = created;
  }
  if (Array.isArray(current)) {
    const index = last === "-" ? current.length : arrayIndex(last);
    if (index === null || index > current.length) return false;
    current[index] = value;
  } else {
    current[last] = value;
  }
  return true;
}
