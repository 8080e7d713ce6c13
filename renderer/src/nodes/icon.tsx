// The icon set (the schema's icon enum) as inline SVG, and the icon node.
import paths from "../../../engine/ui/icons.json";
import type { NodeProps } from "../runtime/hooks";
import type { IconName } from "../schema/node";
import { cx } from "./class-names";
import "./icon.css";

// The path data is engine/ui/icons.json, which the server's prerenderer draws from too: one copy.
// Typed as a record of every icon name, so a name added to the schema without a path fails tsc
// (and icon.test.tsx holds its names to the schema's): its keys are the icon names, and the
// schema's own list stays in the validator's chunk.
const PATHS: Record<IconName, string> = paths;

/** Whether a free-form icon string (button, link, empty state) names one of our icons. */
export function isIconName(name: string | undefined): name is IconName {
  return name !== undefined && Object.hasOwn(PATHS, name);
}

/** One glyph; decorative unless it has a label. */
export function Glyph({ name, label, className }: { name: IconName; label?: string | undefined; className?: string }) {
  const labelled = label !== undefined && label !== "";
  return (
    <svg
      className={cx("icon", className)}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      focusable="false"
      role={labelled ? "img" : undefined}
      aria-label={labelled ? label : undefined}
      aria-hidden={labelled ? undefined : true}
    >
      <path d={PATHS[name]} />
    </svg>
  );
}

export function Icon({ node }: NodeProps<"icon">) {
  return (
    <Glyph
      name={node.name}
      label={node.label}
      className={cx(`icon--${node.size ?? "md"}`, node.tone !== undefined && `tone-text-${node.tone}`)}
    />
  );
}
