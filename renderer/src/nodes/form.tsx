import { useEffect, useRef } from "react";
import { FormScope, type NodeProps, NodeList, takeHeldSubmit, useRun } from "../runtime/hooks";
import "./field.css";

/** Scopes inputs: Enter or a submit button runs `submit` with this form's visible inputs. */
export function Form({ node, pointer }: NodeProps<"form">) {
  const run = useRun(pointer, node.id);
  const element = useRef<HTMLFormElement>(null);
  const { submit } = node;
  // Sent before the app mounted (the server drew the page): sent now, with what was typed.
  useEffect(() => {
    if (element.current !== null && takeHeldSubmit(element.current)) run(submit);
  }, [run, submit]);
  return (
    <FormScope id={node.id}>
      <form
        ref={element}
        className="form"
        // Sent as JSON by the app; should the browser ever send it itself (before the app has
        // mounted), the fields go in a body, never into an address.
        method="post"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          run(node.submit);
        }}
      >
        <NodeList nodes={node.children} pointer={`${pointer}/children`} />
      </form>
    </FormScope>
  );
}
