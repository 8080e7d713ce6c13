/** The app version from package.json, injected by Vite's `define`. */
declare const __APP_VERSION__: string;
