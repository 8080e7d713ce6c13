import { type NodeProps, useFormError } from "../runtime/hooks";
import { Glyph } from "./icon";
import "./field.css";

/** The form's error from the server (or a failed request), announced when it appears. */
export function FormError({ node }: NodeProps<"form_error">) {
  const message = useFormError(node.form);
  if (message === undefined) return null;
  return (
    <p className="form-error" role="alert">
      <Glyph name="alert" />
      <span>{message}</span>
    </p>
  );
}
