/**
 * The OpenTelemetry GenAI semantic conventions' names this gateway relies on, copied from
 * the published conventions (https://github.com/open-telemetry/semantic-conventions):
 *   model/gen-ai/registry.yaml at 575e9abbaa3c05ed75e153a5e0be57260b3a20ed (attributes,
 *     gen_ai.provider.name, gen_ai.operation.name and gen_ai.token.type members);
 *   model/gen-ai/gen-ai-client-metrics.yaml at 34d5b159c2db9c605a121bd2556c7bda5a220e68
 *     (the client metrics, their instruments and units);
 *   model/error/registry.yaml (error.type).
 * opentelemetry.test.ts checks the names the gateway emits against it; update it from a
 * newer conventions release, never from our code.
 */
export const GENAI_SEMCONV = {
  metrics: {
    'gen_ai.client.token.usage': { instrument: 'histogram', unit: '{token}', requiredAttributes: ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.token.type'] },
    'gen_ai.client.operation.duration': { instrument: 'histogram', unit: 's', requiredAttributes: ['gen_ai.operation.name', 'gen_ai.provider.name'] },
  },
  attributes: [
    'gen_ai.provider.name',
    'gen_ai.operation.name',
    'gen_ai.request.model',
    'gen_ai.response.model',
    'gen_ai.token.type',
    'gen_ai.usage.input_tokens',
    'gen_ai.usage.output_tokens',
    'gen_ai.usage.cache_read.input_tokens',
    'gen_ai.usage.cache_creation.input_tokens',
    'error.type',
  ],
  providerNames: [
    'openai',
    'gcp.gen_ai',
    'gcp.vertex_ai',
    'gcp.gemini',
    'anthropic',
    'cohere',
    'azure.ai.inference',
    'azure.ai.openai',
    'ibm.watsonx.ai',
    'aws.bedrock',
    'perplexity',
    'x_ai',
    'deepseek',
    'groq',
    'mistral_ai',
  ],
  operationNames: [
    'chat',
    'generate_content',
    'text_completion',
    'embeddings',
    'retrieval',
    'create_agent',
    'invoke_agent',
    'execute_tool',
    'search_memory',
    'update_memory',
    'delete_memory',
    'create_memory_store',
    'delete_memory_store',
  ],
  tokenTypes: ['input', 'output'],
  /** Advised bucket boundaries of gen_ai.client.token.usage (docs/gen-ai/gen-ai-metrics.md). */
  tokenUsageBuckets: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
  /** Advised bucket boundaries of gen_ai.client.operation.duration (the same page). */
  operationDurationBuckets: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
} as const;
