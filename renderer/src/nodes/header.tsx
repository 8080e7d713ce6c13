import { useSyncExternalStore } from "react";
import { type NodeProps, useOverlayOpen, useRun, t } from "../runtime/hooks";
import { ActionElement } from "./action-element";
import { cx } from "./class-names";
import { Glyph } from "./icon";
import "./header.css";

function subscribeScroll(onChange: () => void): () => void {
  window.addEventListener("scroll", onChange, { passive: true });
  return () => window.removeEventListener("scroll", onChange);
}

const scrolled = (): boolean => window.scrollY > 4;
const never = (): (() => void) => () => undefined;
const notScrolled = (): boolean => false;

/** The top bar: back, logo, title, menu. With elevateOnScroll it is fixed and turns white on scroll. */
export function Header({ node, pointer }: NodeProps<"header">) {
  const elevating = node.elevateOnScroll === true;
  // The server draws the header unscrolled; so does React when it adopts that markup.
  const elevated = useSyncExternalStore(
    elevating ? subscribeScroll : never,
    elevating ? scrolled : notScrolled,
    notScrolled,
  );
  const menu = node.menu;
  const menuOpen = useOverlayOpen(menu ?? "");
  const run = useRun(`${pointer}/menu`);
  return (
    <header className={cx("header", elevating && "header--elevating", elevated && "is-elevated")}>
      {node.back !== undefined && (
        <ActionElement
          action={node.back}
          source={`${pointer}/back`}
          className="icon-button header__back"
          label={node.backLabel ?? t("back")}
        >
          <Glyph name="back" />
        </ActionElement>
      )}
      {node.logo !== undefined && (
        <img
          className="header__logo"
          src={node.logo.src}
          alt={node.logo.alt}
          width={node.logo.intrinsic?.width}
          height={node.logo.intrinsic?.height}
        />
      )}
      {node.title !== undefined && node.title !== "" && <h1 className="header__title">{node.title}</h1>}
      {menu !== undefined && (
        <button
          type="button"
          className="icon-button header__menu"
          aria-label={node.menuLabel ?? t("menu")}
          aria-haspopup="dialog"
          aria-expanded={menuOpen}
          onClick={() => run({ type: "open_overlay", id: menu })}
        >
          <Glyph name="menu" />
        </button>
      )}
    </header>
  );
}
