// @vitest-environment happy-dom
// The billing pages say what the server answers for the checkout in ?session_id=:
// "Payment complete" only for a paid one; nothing charged for none, an unknown (404),
// an open or an expired one; Retry after a failed lookup.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, createRootRoute, createRouter, RouterProvider } from '@tanstack/react-router';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../testing/render.tsx';
import { BillingCancelScreen } from './BillingCancelScreen.tsx';
import { BillingSuccessScreen } from './BillingSuccessScreen.tsx';

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function show(Screen: () => React.ReactNode, url: string) {
  const router = createRouter({ routeTree: createRootRoute({ component: Screen }), history: createMemoryHistory({ initialEntries: [url] }) });
  await router.load();
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

const checkout = (status: string, paymentStatus: string) => jsonResponse(200, { success: true, data: { id: 'cs_test_1', status, paymentStatus }, message: 'OK' });
const notFound = () => jsonResponse(404, { success: false, data: null, message: 'Checkout session not found', code: 'not_found', requestId: 'r1' });

describe('the billing success page', () => {
  it('asks the server about the checkout and says nothing was charged when it knows none', async () => {
    fetchMock.mockResolvedValueOnce(notFound());
    await show(BillingSuccessScreen, '/dashboard/billing/success?session_id=cs_test_a1B2');
    expect(await screen.findByRole('heading', { name: 'No payment was taken' })).toBeTruthy();
    expect(document.body.textContent).toContain('The server answered: Checkout session not found. Nothing was charged.');
    expect(document.body.textContent).not.toContain('Payment complete');
    expect(String(fetchMock.mock.calls[0]![0])).toMatch(/\/subscription\/checkout\/cs_test_a1B2$/);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('shows "Payment complete" only when the server says the checkout was paid', async () => {
    fetchMock.mockResolvedValueOnce(checkout('complete', 'paid'));
    await show(BillingSuccessScreen, '/dashboard/billing/success?session_id=cs_paid');
    expect(await screen.findByRole('heading', { name: 'Payment complete' })).toBeTruthy();
  });

  it.each([
    ['open', 'unpaid', 'Payment not completed'],
    ['expired', 'unpaid', 'Checkout expired'],
    ['complete', 'no_payment_required', 'No payment needed'],
  ])('a checkout %s and %s: "%s", nothing charged', async (status, paymentStatus, title) => {
    fetchMock.mockResolvedValueOnce(checkout(status, paymentStatus));
    await show(BillingSuccessScreen, '/dashboard/billing/success?session_id=cs_x');
    expect(await screen.findByRole('heading', { name: title })).toBeTruthy();
    expect(document.body.textContent).toContain('Nothing was charged.');
  });

  it('without a session id asks nothing and says nothing was charged', async () => {
    await show(BillingSuccessScreen, '/dashboard/billing/success');
    expect(await screen.findByRole('heading', { name: 'No payment was taken' })).toBeTruthy();
    expect(document.body.textContent).toContain('No checkout was named. Nothing was charged.');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('shows a loading state, then the failure with Retry, which asks again', async () => {
    let fail!: (response: Response) => void;
    fetchMock.mockReturnValueOnce(new Promise((resolve) => (fail = resolve)));
    await show(BillingSuccessScreen, '/dashboard/billing/success?session_id=cs_slow');
    expect((await screen.findByRole('status')).textContent).toContain('Checking your payment…');
    fail(jsonResponse(400, { success: false, data: null, message: 'sessionId: must be a checkout session id', code: 'invalid_request', requestId: 'r2' }));
    expect((await screen.findByRole('alert')).textContent).toContain('sessionId: must be a checkout session id');
    fetchMock.mockResolvedValueOnce(checkout('complete', 'paid'));
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('heading', { name: 'Payment complete' })).toBeTruthy();
  });
});

describe('the billing cancel page', () => {
  it('says the payment was cancelled and nothing charged for an unknown checkout', async () => {
    fetchMock.mockResolvedValueOnce(notFound());
    await show(BillingCancelScreen, '/dashboard/billing/cancel?session_id=cs_test_a1B2');
    expect(await screen.findByRole('heading', { name: 'Payment cancelled' })).toBeTruthy();
    expect(document.body.textContent).toContain('Nothing was charged.');
  });

  it('does not claim a cancellation the server contradicts', async () => {
    fetchMock.mockResolvedValueOnce(checkout('complete', 'paid'));
    await show(BillingCancelScreen, '/dashboard/billing/cancel?session_id=cs_paid');
    expect(await screen.findByRole('heading', { name: 'Payment complete' })).toBeTruthy();
  });
});
