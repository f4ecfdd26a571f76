// The one way adapters lower a body's output limit (ProviderAdapter.limitOutput).

/** `body[field]` lowered to `maxTokens` (set when absent), in a new body. */
export function withLimit(body: Record<string, unknown>, field: string, maxTokens: number): Record<string, unknown> {
  const current = body[field];
  return { ...body, [field]: typeof current === 'number' && current < maxTokens ? current : maxTokens };
}
