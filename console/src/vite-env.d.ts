// Types for what Vite adds to the browser build: `import.meta.env` and CSS imports.
/// <reference types="vite/client" />
