import type { NodeProps } from "../runtime/hooks";
import { cx } from "./class-names";
import "./image.css";

/**
 * An image; an empty alt marks it decorative. Loaded eagerly: a 430px column holds few images,
 * and full-page screenshots must not catch them missing.
 */
export function Image({ node }: NodeProps<"image">) {
  return (
    <img
      className={cx(
        "image",
        `image--${node.aspect ?? "auto"}`,
        `image--fit-${node.fit ?? "cover"}`,
        `image--size-${node.size ?? "full"}`,
      )}
      src={node.src}
      alt={node.alt}
      // The image's own size, when known: the browser keeps its room (CSS sets the drawn size).
      width={node.intrinsic?.width}
      height={node.intrinsic?.height}
      decoding="async"
    />
  );
}
