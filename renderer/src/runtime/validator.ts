// The contract's validator (schema/validator.ts: zod and the schemas generated from schema.json)
// is a chunk of its own, which the page does not name: a screen the server wrote into the page is
// shown, and its drawing adopted, before it arrives, and checked once it has (api.ts, runtime.ts).
// Every other answer waits for it. A load that fails is tried once more; when that fails too, the
// answer waiting for it is a failure, and the next answer that needs it tries again.
import type * as Contract from "../schema/validator";

export type Validator = typeof Contract;

export interface ValidatorLoader {
  /** The validator once it has arrived; null before. */
  current(): Validator | null;
  /** The validator, loaded if need be (twice at most); rejects when both tries fail. */
  load(): Promise<Validator>;
}

export function createValidatorLoader(importer: () => Promise<Validator>): ValidatorLoader {
  let loaded: Validator | null = null;
  let loading: Promise<Validator> | null = null;
  return {
    current: () => loaded,
    load() {
      if (loaded !== null) return Promise.resolve(loaded);
      loading ??= importer()
        .catch(() => importer())
        .then(
          (module) => {
            loaded = module;
            return module;
          },
          (error: unknown) => {
            loading = null;
            throw error;
          },
        );
      return loading;
    },
  };
}

/** The app's validator: the dynamic import is where the build splits the chunk off. */
export const contractValidator: ValidatorLoader = createValidatorLoader(() => import("../schema/validator"));
