import { useEffect, useRef } from "react";
import type { NodeProps } from "../runtime/hooks";
import { cx } from "./class-names";
import "./text.css";

// Heading levels must not skip (h1 then h3 fails 'heading-order' and misleads a screen reader's
// outline). A screen's header title is its h1, and screens put a "heading" right under it (a
// section of Analytics, a card on the dashboard) or under a "title": so title and heading are
// both h2, told apart by their look only, and a subheading under either is h3.
const TAGS = {
  display: "h1",
  title: "h2",
  heading: "h2",
  subheading: "h3",
  body: "p",
  caption: "p",
  label: "p",
  overline: "p",
} as const;

/** Plain text in one of the type styles; headings are real headings. */
export function Text({ node }: NodeProps<"text">) {
  const style = node.style ?? "body";
  const Tag = TAGS[style];
  const focus = node.focus === true;
  const ref = useRef<HTMLElement>(null);
  // A desk's heading of what was just opened takes the focus, so the keyboard starts there (not
  // at the top of the page again); tabIndex -1 makes it focusable without adding a tab stop.
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus, node.text]);
  return (
    <Tag
      ref={ref as never}
      tabIndex={focus ? -1 : undefined}
      className={cx(
        "text",
        `text--${style}`,
        node.tone !== undefined && `tone-text-${node.tone}`,
        node.align !== undefined && `text-align-${node.align}`,
      )}
      aria-live={node.live}
    >
      {node.text}
    </Tag>
  );
}
