// Shared markup of the input nodes: the error line and value conversion.

/** A bound value as input text. */
export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return "";
}

/**
 * A UTC date and time input's value (kind datetime-local: the studio's times are UTC) as the same
 * moment in zone, or undefined when zone is UTC or the value is not a date and time yet.
 */
export function inZone(value: string, zone: string, locale?: string): string | undefined {
  if (zone === "UTC" || zone === "Etc/UTC" || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  const at = new Date(`${value}Z`);
  if (Number.isNaN(at.getTime())) return undefined;
  return at.toLocaleString(locale, { timeZone: zone, dateStyle: "medium", timeStyle: "short" });
}

/** A field's error, announced and referenced by aria-describedby. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p id={id} className="field__error" role="alert">
      {message}
    </p>
  );
}
