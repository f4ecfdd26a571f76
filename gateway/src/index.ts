// @spendgate/gateway: the HTTP server (data plane + control plane + console).
export { type App, buildApp } from './app.ts';
export { boundHeapGrowth } from './heap.ts';
