// Shared markup of the input nodes: the error line and value conversion.

/** A bound value as input text. */
export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return "";
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
