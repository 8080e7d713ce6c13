// Paths into the repository for tests that read shared files (the schema, the fixtures).
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (renderer/src/test → ../../..). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

export function repoPath(...segments: string[]): string {
  return resolve(REPO_ROOT, ...segments);
}
