// The OpenTelemetry tests' common setup: a local OTLP/HTTP receiver, a fake OpenAI, and a
// gateway exporting its traces and metrics to the receiver.
import { afterAll, beforeAll } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { type FakeOtlpReceiver, startFakeOtlpReceiver } from '../fakes/otlp-receiver.ts';
import { type RunningSpendgate, startSpendgate, type TestMode } from '../support/spendgate.ts';

export interface TracedGateway {
  receiver: FakeOtlpReceiver;
  fake: FakeOpenAI;
  spendgate: RunningSpendgate;
}

/**
 * Starts the three in the enclosing describe's beforeAll and closes the receiver and the fake
 * in its afterAll; the test closes the gateway itself, which flushes what it exports.
 * @example
 *   const traced = tracedGateway(mode, 'opentelemetry', { OTEL_SERVICE_NAME: 'spendgate-test' });
 *   it('…', async () => { … await traced.spendgate.close(); traced.receiver.spans() … });
 */
export function tracedGateway(mode: TestMode, name: string, env: Record<string, string> = {}): TracedGateway {
  const traced = {} as TracedGateway;
  beforeAll(async () => {
    traced.receiver = await startFakeOtlpReceiver();
    traced.fake = await startFakeOpenAI();
    traced.spendgate = await startSpendgate(mode, name, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: traced.receiver.url, ...env } });
  });
  afterAll(async () => {
    await traced.fake?.close();
    await traced.receiver?.close();
  });
  return traced;
}
