import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

// The build lands in renderer/dist/app, which the Go binary embeds (renderer/embed.go).
// Hashed files go under assets/ so the server can mark them immutable; index.html stays no-cache.
export default defineConfig({
  root,
  base: "/",
  plugins: [react()],
  define: {
    __APP_VERSION__: JSON.stringify(pkg.version),
  },
  build: {
    outDir: fileURLToPath(new URL("./dist/app", import.meta.url)),
    emptyOutDir: true,
    assetsDir: "assets",
    // Inlined data: URIs would need extra CSP sources; every asset is a file.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    // One stylesheet, linked from index.html: the app itself is loaded by boot.ts after the
    // first paint, and a page the server has drawn must be styled before that.
    cssCodeSplit: false,
    // .vite/manifest.json: the server reads the chunks boot.ts loads from it, to preload them on
    // a page it has not drawn (engine/server/files.go). Not served: only assets/ is.
    manifest: true,
    target: "es2022",
  },
  server: {
    // `vite --config renderer/vite.config.ts` against a local Go server.
    proxy: { "/ui": process.env.GLIMPSE_DEV_API ?? "http://127.0.0.1:8080" },
  },
});
