import type { NodeProps } from "../runtime/hooks";
import { cx } from "./class-names";
import "./text.css";

const TAGS = {
  display: "h1",
  title: "h2",
  heading: "h3",
  subheading: "h4",
  body: "p",
  caption: "p",
  label: "p",
  overline: "p",
} as const;

/** Plain text in one of the type styles; headings are real headings. */
export function Text({ node }: NodeProps<"text">) {
  const style = node.style ?? "body";
  const Tag = TAGS[style];
  return (
    <Tag
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
