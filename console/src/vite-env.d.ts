// Types for what Vite adds to the browser build: `import.meta.env` and CSS imports.
/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Contact addresses shown on the site (defaults in shared/config.ts). */
  readonly VITE_SUPPORT_EMAIL?: string;
  readonly VITE_SALES_EMAIL?: string;
  /** The /demo video and its poster image. */
  readonly VITE_DEMO_VIDEO_URL?: string;
  readonly VITE_DEMO_POSTER_URL?: string;
  /** Its captions (WebVTT). */
  readonly VITE_DEMO_CAPTIONS_URL?: string;
}
