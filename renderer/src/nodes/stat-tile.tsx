import { t, type NodeProps } from "../runtime/hooks";
import { ActionElement } from "./action-element";
import "./stat-tile.css";

/** A figure with its label; a null value is still being computed and shows a clock. */
export function StatTile({ node, pointer }: NodeProps<"stat_tile">) {
  const content = (
    <>
      <span className="stat-tile__label">{node.label}</span>
      {node.value === null ? (
        <span className="stat-tile__pending" role="img" aria-label={node.pendingLabel ?? t("calculating")}>
          <span className="clock" aria-hidden="true" />
        </span>
      ) : (
        <span className="stat-tile__value">{node.value}</span>
      )}
      {node.caption !== undefined && <span className="stat-tile__caption">{node.caption}</span>}
    </>
  );
  if (node.action === undefined) return <div className="stat-tile">{content}</div>;
  return (
    <ActionElement action={node.action} source={pointer} className="stat-tile stat-tile--action">
      {content}
    </ActionElement>
  );
}
