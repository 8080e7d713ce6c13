import { normaliseHref, t, type NodeProps } from "../runtime/hooks";
import type { RichBlock, Span } from "../schema/node";
import "./rich-text.css";

function SpanView({ span }: { span: Span }) {
  let content = <>{span.text}</>;
  if (span.em === true) content = <em>{content}</em>;
  if (span.strong === true) content = <strong>{content}</strong>;
  // A diff's marks: the tag says it to assistive tech that reads it, the hidden word to the rest.
  if (span.ins === true)
    content = (
      <ins>
        <span className="sr-only">{t("diff.added")}: </span>
        {content}
      </ins>
    );
  if (span.del === true)
    content = (
      <del>
        <span className="sr-only">{t("diff.removed")}: </span>
        {content}
      </del>
    );
  if (span.href === undefined) return content;
  // A target the browser would read as another origin or a script is shown as plain text.
  const href = normaliseHref(span.href);
  if (href === null) return content;
  // Same-origin paths are routed by the router's click interception; https opens a new tab.
  const external = href.startsWith("https://");
  return (
    <a href={href} target={external ? "_blank" : undefined} rel={external ? "noopener noreferrer" : undefined}>
      {content}
    </a>
  );
}

function Spans({ spans }: { spans: readonly Span[] }) {
  return spans.map((span, index) => <SpanView key={index} span={span} />);
}

function Block({ block }: { block: RichBlock }) {
  switch (block.kind) {
    case "heading": {
      const Tag = (["h2", "h3", "h4"] as const)[block.level - 2] ?? "h2";
      return (
        <Tag>
          <Spans spans={block.spans} />
        </Tag>
      );
    }
    case "paragraph":
      return (
        <p>
          <Spans spans={block.spans} />
        </p>
      );
    case "list": {
      const Tag = block.ordered === true ? "ol" : "ul";
      return (
        <Tag>
          {block.items.map((item, index) => (
            <li key={index}>
              <Spans spans={item} />
            </li>
          ))}
        </Tag>
      );
    }
  }
}

/** Pre-parsed rich text: headings, paragraphs and lists of styled spans. */
export function RichText({ node }: NodeProps<"rich_text">) {
  return (
    <div className="rich-text">
      {node.blocks.map((block, index) => (
        <Block key={index} block={block} />
      ))}
    </div>
  );
}
