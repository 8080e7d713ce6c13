// Time helpers shared by the store and the countdown.

/** Milliseconds since the epoch for an RFC 3339 date-time; sub-millisecond digits are dropped. */
export function parseTime(value: string): number {
  return Date.parse(value.replace(/(\.\d{3})\d+/, "$1"));
}
