/**
 * GET /api/subscription/checkout/{sessionId}, in every run mode, on a server without
 * Stripe set up (subscription-stripe.test.ts has one with it): no checkout exists, so any
 * id of the right form is 404 'Checkout session not found' for a signed-in account, never
 * a payment; a malformed id is a 400 naming it, and no session is a 401.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

for (const mode of testModes) {
  describe(`a checkout's state (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let token: string;

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'api-billing-checkout');
      ({ token } = await signUp(spendgate.url, `checkout-${mode}@example.com`));
    });
    afterAll(async () => {
      await spendgate?.close();
    });

    it("answers 404 'Checkout session not found' for a checkout id, since none exists without Stripe", async () => {
      for (const sessionId of ['cs_test_a1B2c3d4', 'cs_live_ZZ9', '123', `cs_${'x'.repeat(97)}`]) {
        const answer = await callApi(spendgate.url, 'GET', `/subscription/checkout/${sessionId}`, { token });
        expect(answer.status, sessionId).toBe(404);
        expect(answer.body).toMatchObject({ success: false, data: null, message: 'Checkout session not found', code: 'not_found' });
      }
    });

    it('refuses a malformed id with a 400 naming the field', async () => {
      for (const sessionId of ['cs%20test', 'cs-test', 'cs.test', '%00']) {
        const answer = await callApi(spendgate.url, 'GET', `/subscription/checkout/${sessionId}`, { token });
        expect(answer.status, sessionId).toBe(400);
        expect(answer.body.message, sessionId).toContain('sessionId');
      }
    });

    it('answers 401 without a session', async () => {
      const answer = await callApi(spendgate.url, 'GET', '/subscription/checkout/cs_test_a1B2c3d4');
      expect(answer.status).toBe(401);
    });
  });
}
