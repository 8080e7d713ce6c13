import { useEffect, useId, useRef } from "react";
import { type NodeProps, NodeList, useOverlay, t } from "../runtime/hooks";
import { cx } from "./class-names";
import { Glyph } from "./icon";
import "./dialog.css";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusables(container: HTMLElement): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => !element.closest("[inert]"));
}

/**
 * A modal, fullscreen or drawer dialog from `overlays`. Focus moves in when it opens, stays in
 * while it is open, and returns to the element that opened it; Escape, the close button and the
 * backdrop dismiss it when it is dismissible.
 */
export function Dialog({ node, pointer }: NodeProps<"dialog">) {
  const overlay = useOverlay();
  const panel = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const dismissible = node.dismissible === true;
  const top = overlay?.top === true;
  const dismiss = overlay?.dismiss;
  const { onClose } = node;

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const container = panel.current;
    if (container !== null) {
      const inside = focusables(container);
      const target = inside.find((element) => !element.classList.contains("dialog__close")) ?? inside[0] ?? container;
      target.focus();
    }
    return () => {
      if (opener !== null && opener.isConnected && opener !== document.body) opener.focus();
    };
  }, []);

  // The topmost dialog owns the keyboard: Escape dismisses it, Tab cycles inside it (also when
  // focus fell to the page, e.g. after a button inside went busy).
  useEffect(() => {
    if (!top) return undefined;
    const onKeyDown = (event: KeyboardEvent): void => {
      const container = panel.current;
      if (event.key === "Escape" && dismissible && dismiss !== undefined) {
        event.preventDefault();
        dismiss(onClose);
        return;
      }
      if (event.key !== "Tab" || container === null) return;
      const inside = focusables(container);
      const first = inside[0];
      const last = inside.at(-1);
      const active = document.activeElement;
      if (first === undefined || last === undefined) {
        event.preventDefault();
        container.focus();
      } else if (active === null || !container.contains(active)) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      } else if (event.shiftKey && (active === first || active === container)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && active === last) {
        event.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [top, dismissible, dismiss, onClose]);

  if (overlay === null) return null; // a dialog renders only as an overlay

  const close = (): void => overlay.dismiss(onClose);
  const presentation = node.presentation ?? "modal";
  const hasTitle = node.title !== undefined && node.title !== "";
  // The outcome of a task: a mark and the title as the body's centred headline (issue #21).
  const outcome = node.outcome;
  return (
    <div className={cx("overlay", `overlay--${presentation}`)} inert={!overlay.top}>
      <div className="overlay__backdrop" aria-hidden="true" onClick={dismissible ? close : undefined} />
      <div
        ref={panel}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={hasTitle ? titleId : undefined}
        aria-label={hasTitle ? undefined : node.closeLabel}
        tabIndex={-1}
      >
        {((hasTitle && outcome === undefined) || dismissible) && (
          <div className="dialog__head">
            {hasTitle && outcome === undefined && (
              <h2 id={titleId} className="dialog__title">
                {node.title}
              </h2>
            )}
            {dismissible && (
              <button type="button" className="icon-button dialog__close" aria-label={node.closeLabel ?? t("close")} onClick={close}>
                <Glyph name="close" />
              </button>
            )}
          </div>
        )}
        <div className={cx("dialog__body", outcome !== undefined && `dialog__body--outcome`)}>
          {outcome !== undefined && (
            <span className={`dialog__mark dialog__mark--${outcome}`} aria-hidden="true">
              <Glyph name="check" />
            </span>
          )}
          {hasTitle && outcome !== undefined && (
            <h2 id={titleId} className="dialog__headline">
              {node.title}
            </h2>
          )}
          <NodeList nodes={node.children} pointer={`${pointer}/children`} />
        </div>
      </div>
    </div>
  );
}
