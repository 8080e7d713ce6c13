// The inputs currently mounted (so visible), by form. A submit collects and validates exactly
// these; an edit clears the errors of every input of the same form.
import type { Rule } from "../schema/rule";

export interface FieldSpec {
  id: string;
  bind: string;
  rules: readonly Rule[];
  /** The form the input sits in; undefined outside any form. */
  formId: string | undefined;
  /** The input's element, to order fields and focus the first invalid one. */
  element: () => HTMLElement | null;
}

/** A mounted file input and what was chosen in it. */
export interface FileSpec {
  id: string;
  file: File | null;
  maxBytes?: number | undefined;
  requiredMessage: string;
  tooLargeMessage?: string | undefined;
  element: () => HTMLElement | null;
}

export interface Forms {
  /** Registers a mounted file input; the returned function unregisters it. */
  registerFile(spec: FileSpec): () => void;
  /** The file input with an id. */
  file(inputId: string): FileSpec | undefined;
  /** Registers a mounted input; the returned function unregisters it. */
  register(field: FieldSpec): () => void;
  /** The mounted inputs of a form, in document order. */
  fields(formId: string): FieldSpec[];
  field(inputId: string): FieldSpec | undefined;
}

function documentOrder(a: HTMLElement | null, b: HTMLElement | null): number {
  if (a === null || b === null || a === b) return 0;
  return a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
}

export function createForms(): Forms {
  const mounted = new Set<FieldSpec>();
  const files = new Map<string, FileSpec>();
  return {
    registerFile(spec) {
      files.set(spec.id, spec);
      return () => {
        if (files.get(spec.id) === spec) files.delete(spec.id);
      };
    },
    file: (inputId) => files.get(inputId),
    register(field) {
      mounted.add(field);
      return () => {
        mounted.delete(field);
      };
    },
    fields: (formId) =>
      [...mounted].filter((field) => field.formId === formId).sort((a, b) => documentOrder(a.element(), b.element())),
    field: (inputId) => [...mounted].find((field) => field.id === inputId),
  };
}
