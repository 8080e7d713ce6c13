import { FormScope, type NodeProps, NodeList, useRun } from "../runtime/hooks";
import "./field.css";

/** Scopes inputs: Enter or a submit button runs `submit` with this form's visible inputs. */
export function Form({ node, pointer }: NodeProps<"form">) {
  const run = useRun(pointer, node.id);
  return (
    <FormScope id={node.id}>
      <form
        className="form"
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
