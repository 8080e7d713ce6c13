// The icon set (the schema's icon enum) as inline SVG, and the icon node.
import type { NodeProps } from "../runtime/hooks";
import { ICON_NAMES, type IconName } from "../schema/node";
import { cx } from "./class-names";
import "./icon.css";

const PATHS: Record<IconName, string> = {
  back: "M15 18l-6-6 6-6",
  menu: "M4 7h16M4 12h16M4 17h16",
  close: "M6 6l12 12M18 6L6 18",
  chevron: "M9 6l6 6-6 6",
  clock: "M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0zM12 7v5l3 2",
  lock: "M7 11h10a2 2 0 0 1 2 2v6a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2v-6a2 2 0 0 1 2-2zM8 11V7a4 4 0 0 1 8 0v4",
  check: "M5 12l5 5L20 7",
  alert: "M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0zM12 8v5M12 16h.01",
  star: "M12 3l2.8 5.7 6.2.9-4.5 4.4 1.1 6.2L12 17.3l-5.6 2.9 1.1-6.2L3 9.6l6.2-.9z",
  logout: "M9 20H6a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h3M16 17l5-5-5-5M21 12H9",
  mail: "M5 5h14a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2zM3 7l9 6 9-6",
  shield: "M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z",
  news: "M4 5h13v14H6a2 2 0 0 1-2-2zM17 9h3v8a2 2 0 0 1-2 2M8 9h5M8 13h5",
  course: "M4 19.5A2.5 2.5 0 0 1 6.5 17H20V3H6.5A2.5 2.5 0 0 0 4 5.5zM4 19.5A2.5 2.5 0 0 0 6.5 22H20v-5",
  insights: "M4 20V11M10 20V5M16 20v-6M21 20H3",
  eye: "M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12zM15 12a3 3 0 1 1-6 0 3 3 0 0 1 6 0z",
  search: "M18 11a7 7 0 1 1-14 0 7 7 0 0 1 14 0zM20 20l-4-4",
};

/** Whether a free-form icon string (button, link, empty state) names one of our icons. */
export function isIconName(name: string | undefined): name is IconName {
  return (ICON_NAMES as readonly string[]).includes(name ?? "");
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
