import { type NodeProps, NodeList } from "../runtime/hooks";
import "./footer.css";

/** The page footer: product name, tagline, links. */
export function Footer({ node, pointer }: NodeProps<"footer">) {
  return (
    <footer className="footer">
      {node.title !== undefined && <p className="footer__title">{node.title}</p>}
      {node.subtitle !== undefined && <p className="footer__subtitle">{node.subtitle}</p>}
      {node.children !== undefined && node.children.length > 0 && (
        <div className="footer__links">
          <NodeList nodes={node.children} pointer={`${pointer}/children`} />
        </div>
      )}
    </footer>
  );
}
