// ESLint for the web renderer. Typed rules apply to renderer/ TypeScript; the import
// boundaries keep node components pure (runtime access only through runtime/hooks) and the
// runtime free of node components (no import cycle through nodes/).
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const runtimeNoNodes = {
  regex: "^\\.\\./(\\.\\./)*nodes(/|$)",
  message: "runtime/ may not import nodes/: the app injects the registry (RegistryContext).",
};

export default tseslint.config(
  { ignores: ["**/node_modules/**", "renderer/dist/**", "e2e/**", "playwright-report/**", "test-results/**"] },
  js.configs.recommended,
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: globals.node },
  },
  {
    files: ["renderer/**/*.{ts,tsx}"],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: globals.browser,
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-confusing-void-expression": "off",
      "@typescript-eslint/no-unnecessary-condition": ["error", { allowConstantLoopConditions: true }],
    },
  },
  {
    files: ["renderer/src/**/*.tsx", "renderer/src/runtime/hooks.tsx"],
    ...reactHooks.configs.flat["recommended-latest"],
  },
  {
    // Tests hand spies and store methods to expect() and React freely.
    files: ["renderer/src/**/*.test.{ts,tsx}", "renderer/src/test/**"],
    rules: { "@typescript-eslint/unbound-method": "off" },
  },
  {
    files: ["renderer/src/**/*.{ts,tsx}"],
    ignores: ["renderer/src/**/*.test.{ts,tsx}", "renderer/src/test/**"],
    rules: {
      "no-console": ["error", { allow: ["error", "info", "warn"] }],
    },
  },
  {
    // Node components are props in, markup out: the runtime only through its hooks module.
    files: ["renderer/src/nodes/**/*.{ts,tsx}"],
    ignores: ["renderer/src/nodes/**/*.test.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(\\.\\./)*runtime/(?!hooks$)",
              message: "nodes/ may use the runtime only through runtime/hooks.",
            },
            { regex: "^\\.\\./(\\.\\./)*(app|main)$", message: "nodes/ may not import the app shell." },
          ],
        },
      ],
    },
  },
  {
    // The runtime knows no node components: the app hands it the registry (RegistryContext), so
    // imports run one way, nodes/ → runtime/hooks, and never back. Nor does it know the app
    // shell that wires it (its tests may render the app).
    files: ["renderer/src/runtime/**/*.{ts,tsx}"],
    rules: { "no-restricted-imports": ["error", { patterns: [runtimeNoNodes] }] },
  },
  {
    files: ["renderer/src/runtime/**/*.{ts,tsx}"],
    ignores: ["renderer/src/runtime/**/*.test.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            runtimeNoNodes,
            { regex: "^\\.\\./(\\.\\./)*(app|main|boot)$", message: "runtime/ may not import the app shell." },
          ],
        },
      ],
    },
  },
  {
    // The contract's validator (zod and schema/) is a chunk the app loads after its first screen
    // (runtime/validator.ts): outside schema/, only its types may be imported (and
    // schema/token.ts), or the first visit's bundle takes it back (`npm run size`).
    files: ["renderer/src/**/*.{ts,tsx}"],
    ignores: ["renderer/src/schema/**", "renderer/src/**/*.test.{ts,tsx}", "renderer/src/test/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["zod", "zod/*"], allowTypeImports: true, message: "zod belongs to the validator's chunk (schema/)." },
            {
              regex: "(^|/)schema/(?!token$)",
              allowTypeImports: true,
              message: "schema/ is the validator's chunk: import its types, or load it through runtime/validator.",
            },
          ],
        },
      ],
    },
  },
  {
    // The schema is the contract mirror: it depends on zod and nothing of ours.
    files: ["renderer/src/schema/**/*.ts"],
    ignores: ["renderer/src/schema/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^\\.\\./(runtime|nodes|app|main)", message: "schema/ imports nothing of ours." }] },
      ],
    },
  },
);
