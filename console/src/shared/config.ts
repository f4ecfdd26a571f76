// Site-wide constants: product name, contact addresses and media locations. The
// addresses and the demo video can be changed at build time (VITE_* variables).

export const PRODUCT_NAME = 'Spendgate';

export const SUPPORT_EMAIL = import.meta.env.VITE_SUPPORT_EMAIL ?? 'support@spendgate.dev';
export const SALES_EMAIL = import.meta.env.VITE_SALES_EMAIL ?? 'sales@spendgate.dev';

/** The /demo video, made from the product by `npm run demo:video`; a longer cut can be set at build time. */
export const DEMO_VIDEO_URL = import.meta.env.VITE_DEMO_VIDEO_URL ?? '/media/spendgate-demo.mp4';
export const DEMO_POSTER_URL = import.meta.env.VITE_DEMO_POSTER_URL ?? '/media/spendgate-demo-poster.jpg';
export const DEMO_CAPTIONS_URL = import.meta.env.VITE_DEMO_CAPTIONS_URL ?? '/media/spendgate-demo.vtt';

/** Root of the control-plane API, same origin. */
export const API_ROOT = '/api';

export const API_TIMEOUT_MS = 30_000;

export const COPYRIGHT_YEAR = 2025;

export const supportMailto = (subject = `${PRODUCT_NAME} support`) =>
  `mailto:${SUPPORT_EMAIL}?subject=${encodeURIComponent(subject)}`;
export const salesMailto = (subject = `${PRODUCT_NAME} Enterprise enquiry`) =>
  `mailto:${SALES_EMAIL}?subject=${encodeURIComponent(subject)}`;
