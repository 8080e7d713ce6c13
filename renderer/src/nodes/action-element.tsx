// Renders an action as the right element: a real <a href> when it navigates (navigate,
// replace, open_url, download), otherwise a <button> that shows a spinner while its submit runs
// (aria-disabled rather than disabled then, so keyboard focus stays on it).
import type { ReactNode } from "react";
import { useAction } from "../runtime/hooks";
import type { Action } from "../schema/action";
import { cx } from "./class-names";

export interface ActionElementProps {
  action: Action | undefined;
  /** The node pointer of the element, which marks it busy while its submit runs. */
  source: string;
  className?: string | undefined;
  children: ReactNode;
  label?: string | undefined;
  labelledBy?: string | undefined;
  disabled?: boolean;
  /** A form's submit button (Enter in a field activates it). */
  submit?: boolean;
}

export function ActionElement({
  action,
  source,
  className,
  children,
  label,
  labelledBy,
  disabled = false,
  submit = false,
}: ActionElementProps) {
  const binding = useAction(action, source);
  if (binding.kind === "link" && !disabled) {
    return (
      <a
        className={className}
        href={binding.href}
        target={binding.target}
        rel={binding.rel}
        download={binding.download === "" ? true : binding.download}
        data-router={binding.native ? "off" : undefined}
        aria-label={label}
        aria-labelledby={labelledBy}
        onClick={binding.onClick}
      >
        {children}
      </a>
    );
  }
  const busy = binding.kind === "button" && binding.busy;
  return (
    <button
      type={submit ? "submit" : "button"}
      className={cx(className, busy && "is-busy")}
      disabled={disabled || binding.kind === "none"}
      aria-busy={busy || undefined}
      aria-disabled={busy || undefined}
      aria-label={label}
      aria-labelledby={labelledBy}
      onClick={(event) => {
        event.preventDefault();
        if (binding.kind === "button" && !busy) binding.onClick();
      }}
    >
      {busy && <span className="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}
