import { lazy, Suspense } from "react";
import { type NodeProps, t } from "../runtime/hooks";
import { Spinner } from "./loader";

// The list's code loads when one is first shown (the audience dialogs), not with the app: it is
// not needed for a first screen, and the first bundle has a budget (`npm run size`).
const NameListView = lazy(() => import("./name-list-view"));

/** A long, searchable list of names read a page at a time (name-list-view.tsx). */
export function NameList(props: NodeProps<"name_list">) {
  return (
    <Suspense fallback={<Spinner label={props.node.pendingLabel ?? t("loading")} />}>
      <NameListView {...props} />
    </Suspense>
  );
}
