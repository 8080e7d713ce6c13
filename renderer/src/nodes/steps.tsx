import { useEffect, useRef } from "react";
import { type NodeProps, NodeList, useStateValue } from "../runtime/hooks";
import "./layout.css";

/**
 * A client-side wizard: shows the step whose id is the state value at `bind` (the first step
 * when none matches); set_state moves between steps. Focus moves to a step when it changes.
 */
export function Steps({ node, pointer }: NodeProps<"steps">) {
  const current = useStateValue(node.bind);
  const found = node.steps.findIndex((step) => step.id === current);
  const index = found === -1 ? 0 : found;
  const step = node.steps[index];
  const container = useRef<HTMLDivElement>(null);
  const shown = useRef<string | undefined>(undefined);
  const stepId = step?.id;

  useEffect(() => {
    if (shown.current !== undefined && shown.current !== stepId) container.current?.focus();
    shown.current = stepId;
  }, [stepId]);

  if (step === undefined) return null;
  return (
    <div ref={container} className="steps stack gap-md" tabIndex={-1} data-step={step.id}>
      <NodeList key={step.id} nodes={step.children} pointer={`${pointer}/steps/${index}/children`} />
    </div>
  );
}
