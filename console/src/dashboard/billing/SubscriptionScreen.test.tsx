// @vitest-environment happy-dom
// The subscription screen against a stubbed API: each panel's loading, empty and failed
// states ('Subscription settings failed to load.' with the server's message, Retry);
// the trial's days left; a change of plan with its proration preview; cancelling at the
// period's end or at once; a card added through a SetupIntent, made the default and
// removed; an invoice's lines and CSV; the plan-required modal opened by a 402 and
// going to checkout for the plan chosen.
import { QueryClient, QueryClientProvider, useMutation } from '@tanstack/react-query';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiData } from '../../api/client.ts';
import type { Allowance, CurrentSubscription, Invoice, InvoiceDetail, InvoiceLine, PaymentMethod, Plan, SubscriptionUsage } from '../../api/subscription/types.ts';
import { saveSession } from '../../shared/session.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { invoiceCsv } from './invoice-csv.ts';
import { PlanRequiredModal } from './PlanRequiredModal.tsx';
import { closePlanRequired, watchPlanLimits } from './plan-selection.ts';
import { SubscriptionScreen } from './SubscriptionScreen.tsx';

const plan = (id: string, name: string, price: Plan['price'], createdAt: string): Plan => ({ id, name, slug: name.toLowerCase().replace(' ', '-'), description: '', price, features: [], createdAt });
const PLANS = [
  plan('p-trial', 'Free trial', 0, '2026-01-01T00:00:00Z'),
  plan('p-dev', 'Developers', '29', '2026-01-02T00:00:00Z'),
  plan('p-growth', 'Growth', '99', '2026-01-03T00:00:00Z'),
  plan('p-ent', 'Enterprise', null, '2026-01-04T00:00:00Z'),
];

const NOW = new Date('2026-11-16T00:00:00.000Z');
const active: CurrentSubscription = {
  id: '00000000-0000-4000-8000-00000000a001',
  plan: 'growth',
  planName: 'Growth',
  status: 'active',
  trialEnd: null,
  isTrialing: false,
  currentPeriodStart: '2026-11-01T00:00:00.000Z',
  currentPeriodEnd: '2026-12-01T00:00:00.000Z',
  cancelAtPeriodEnd: false,
  canceledAt: null,
  hasPaymentMethod: true,
};
const trialing: CurrentSubscription = { ...active, plan: 'developers', planName: 'Developers', status: 'trialing', isTrialing: true, trialEnd: '2026-12-26T00:00:00.000Z', hasPaymentMethod: false };

const visa: PaymentMethod = { id: 'pm_1', brand: 'visa', last4: '4242', expMonth: 4, expYear: 2030, isDefault: true, createdAt: '2026-11-02T10:00:00.000Z' };
const mastercard: PaymentMethod = { id: 'pm_2', brand: 'mastercard', last4: '4444', expMonth: 12, expYear: 2031, isDefault: false, createdAt: '2026-11-03T10:00:00.000Z' };

const TEAM = '00000000-0000-4000-8000-0000000000c1';
const invoice: Invoice = {
  id: '00000000-0000-4000-8000-00000000e001',
  number: 'SG-000001',
  status: 'paid',
  currency: 'GBP',
  periodStart: '2026-10-01T00:00:00.000Z',
  periodEnd: '2026-11-01T00:00:00.000Z',
  billedUntil: '2026-11-01T00:00:00.000Z',
  totalPence: 11673,
  createdAt: '2026-11-01T01:00:00.000Z',
  finalizedAt: '2026-11-01T02:00:00.000Z',
  paidAt: '2026-11-01T02:00:05.000Z',
  voidedAt: null,
  proof: { checkedAt: '2026-11-02T03:00:00.000Z', ok: true },
};
const line = (kind: InvoiceLine['kind'], description: string, quantity: number, unitAmountMicros: string | null, amountPence: number): InvoiceLine => ({
  kind,
  meter: null,
  teamId: kind === 'plan' ? null : TEAM,
  planSlug: kind === 'plan' || kind.startsWith('extra') ? 'growth' : null,
  windowStart: '2026-10-01T00:00:00.000Z',
  windowEnd: '2026-11-01T00:00:00.000Z',
  description,
  quantity,
  unitAmountMicros,
  amountMicros: String(BigInt(amountPence) * 10_000n),
  amountPence,
  unpricedRequests: 0,
  adjusts: null,
});
const lines = [
  line('plan', 'Growth, 1 Oct – 1 Nov', 1, '99000000', 9900),
  line('byom-routing-fee', '1,234 requests at £0.001', 1234, '1000', 123),
  line('extra-seats', '2 seats, "6th and 7th"', 2, '8000000', 1550),
  // September's requests recorded after September's invoice was built.
  {
    ...line('optimised-uplift', 'Adjustment to SG-2026-000007: 3 requests', 3, null, 100),
    windowStart: '2026-09-01T00:00:00.000Z',
    windowEnd: '2026-10-01T00:00:00.000Z',
    adjusts: { invoiceId: '00000000-0000-4000-8000-00000000e000', number: 'SG-2026-000007', arrivedFrom: '2026-10-01T01:00:00.000Z' },
  },
];
const invoiceDetail: InvoiceDetail = {
  ...invoice,
  lines: lines.map((each, index) => ({ ...each, id: `00000000-0000-4000-8000-00000000f00${index}`, counts: null, itemsUrl: null, proof: { foundQuantity: null, foundMicros: null } })),
};

const allowance = (used: number, included: number | null): Allowance => ({ used, included, extra: included === null ? 0 : Math.max(0, used - included), canAddMore: true });
const usage: SubscriptionUsage = {
  period: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z', until: NOW.toISOString(), trial: false },
  plan: { slug: 'growth', name: 'Growth' },
  status: 'active',
  charged: true,
  currency: 'GBP',
  lines: [
    { ...line('plan', 'Growth, 1 Nov – 16 Nov', 1, '99000000', 4950), windowStart: '2026-11-01T00:00:00.000Z', windowEnd: NOW.toISOString() },
    { ...line('optimised-uplift', '1,500 requests', 1500, null, 235), windowStart: '2026-11-01T00:00:00.000Z', windowEnd: NOW.toISOString() },
    { ...line('advisor-insights', '4 insights at £0.03', 4, '30000', 12), windowStart: '2026-11-01T00:00:00.000Z', windowEnd: NOW.toISOString() },
  ],
  totalPence: 5197,
  teams: [{ teamId: TEAM, name: 'Core', allowances: { seats: allowance(6, 5), syntheticGroups: allowance(3, 5), optimisedKeys: allowance(12, 10) } }],
};

const ok = (data: unknown) => jsonResponse(200, { success: true, data, message: 'OK' });
const failure = (status: number, message: string, code = 'internal') => jsonResponse(status, { success: false, data: null, message, code, requestId: 'r1' });

type Route = (body: unknown) => Response | Promise<Response>;

/** A stubbed API by method and path; unless given, an active Growth subscription with one card and one invoice. */
function stubApi(given: Record<string, Route> = {}) {
  const routes: Record<string, Route> = {
    'GET /api/subscription/plans': () => ok(PLANS),
    'GET /api/subscription/current': () => ok(active),
    'GET /api/subscription/usage': () => ok(usage),
    'GET /api/subscription/payment-methods': () => ok([visa]),
    'GET /api/subscription/billing': () => ok([invoice]),
    [`GET /api/subscription/invoice/${invoice.id}`]: () => ok(invoiceDetail),
    ...given,
  };
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = new URL(String(input), 'http://localhost');
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    const route = routes[key];
    if (!route) throw new Error(`unexpected call ${key}`);
    return route(init?.body ? JSON.parse(String(init.body)) : undefined);
  });
  vi.stubGlobal('fetch', fetchMock);
  const calls = (key: string) =>
    fetchMock.mock.calls.filter(([input, init]) => `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}` === key);
  return { fetchMock, calls, routes };
}

const panel = (name: string) => screen.getByRole('region', { name });

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
  localStorage.clear();
  saveSession('jwt-ada', { id: 'u1', email: 'ada@example.com', emailVerified: true });
});

afterEach(() => {
  cleanup();
  closePlanRequired();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the subscription screen', () => {
  it('shows each panel loading, then the plan, usage, cards and invoices', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    stubApi({
      'GET /api/subscription/current': async () => {
        await gate;
        return ok(active);
      },
    });
    await renderInSite(<SubscriptionScreen />);
    expect(within(panel('Plan')).getByRole('status').textContent).toContain('Loading your subscription…');
    release();
    expect(await within(panel('Plan')).findByText('Growth')).toBeTruthy();
    expect(panel('Plan').textContent).toContain('Active');
    expect(panel('Plan').textContent).toContain('£99/month');
    expect(panel('Plan').textContent).toContain('This period runs from 1 Nov 2026 to 1 Dec 2026.');

    const charges = await within(panel("This period's usage")).findByRole('table', { name: "This period's charges so far" });
    expect(within(charges).getAllByRole('row').map((row) => row.textContent)).toEqual([
      'ItemQuantityAmount',
      'PlanGrowth, 1 Nov – 16 Nov1£49.50',
      'Optimised requests1,500 requests1,500£2.35',
      'AI advisor insights4 insights at £0.034£0.12',
      'Total£51.97',
    ]);
    expect(panel("This period's usage").textContent).toContain('This period: 1 Nov 2026 – 1 Dec 2026. So far: £51.97.');
    const allowances = within(panel("This period's usage")).getByRole('table', { name: 'Core: allowances' });
    expect(within(allowances).getAllByRole('row').map((row) => row.textContent)).toEqual([
      'AllowanceUsed now',
      'Optimised keys12 of 10 included, 2 extra',
      'Synthetic groups3 of 5 included',
      'Seats6 of 5 included, 1 extra',
    ]);
    expect(await within(panel('Payment methods')).findByText('Visa ending 4242')).toBeTruthy();
    expect(panel('Payment methods').textContent).toContain('expires 04/2030');
    expect(panel('Payment methods').textContent).toContain('Default');
    expect(await within(panel('Invoices')).findByText('SG-000001')).toBeTruthy();
    expect(panel('Invoices').textContent).toContain('£116.73');
    expect(panel('Invoices').textContent).toContain('Paid');
  });

  it("names an ended subscription's invoice of late usage by what it bills, not by an empty period", async () => {
    const lateUsage: Invoice = { ...invoice, id: '00000000-0000-4000-8000-00000000e002', number: 'SG-2026-000009', periodStart: '2026-11-10T00:00:00.000Z', periodEnd: '2026-11-10T00:00:00.000Z', totalPence: 124 };
    stubApi({ 'GET /api/subscription/billing': () => ok([lateUsage, invoice]) });
    await renderInSite(<SubscriptionScreen />);
    const rows = within(await within(panel('Invoices')).findByRole('list', { name: 'Invoices' })).getAllByRole('listitem');
    expect(rows[0]!.textContent).toContain('SG-2026-000009 Late usage after the subscription ended, counted to 10 Nov 2026');
    expect(rows[1]!.textContent).toContain('SG-000001 1 Oct 2026 – 1 Nov 2026');
  });

  it('a trial says its days left and offers a plan to pay for; no cards and no invoices are said so', async () => {
    stubApi({
      'GET /api/subscription/current': () => ok(trialing),
      'GET /api/subscription/payment-methods': () => ok([]),
      'GET /api/subscription/billing': () => ok([]),
    });
    await renderInSite(<SubscriptionScreen />);
    expect(await within(panel('Plan')).findByText('Free trial')).toBeTruthy();
    expect(panel('Plan').textContent).toContain('40 days left in your free trial (it ends on 26 Dec 2026).');
    expect(within(panel('Plan')).getByRole('button', { name: 'Choose a plan and pay' })).toBeTruthy();
    expect(await within(panel('Payment methods')).findByText('No card saved yet. Add one to pay when your trial ends.')).toBeTruthy();
    expect(await within(panel('Invoices')).findByText('No invoices yet. The first comes at the end of your first paid period.')).toBeTruthy();
  });

  it('says no period is under way when the server knows none (404), without a failure', async () => {
    stubApi({ 'GET /api/subscription/usage': () => failure(404, 'Current billing period not found', 'not_found') });
    await renderInSite(<SubscriptionScreen />);
    expect(await within(panel("This period's usage")).findByText('No billing period is under way: usage is counted from the start of the next one.')).toBeTruthy();
    expect(within(panel("This period's usage")).queryByRole('alert')).toBeNull();
  });

  it('a trial ended without a card (paused) says so and offers a plan to pay for', async () => {
    stubApi({ 'GET /api/subscription/current': () => ok({ ...trialing, status: 'paused', trialEnd: '2026-11-10T00:00:00.000Z' }) });
    await renderInSite(<SubscriptionScreen />);
    expect(await within(panel('Plan')).findByText('Trial ended')).toBeTruthy();
    expect(panel('Plan').textContent).toContain('Your trial has ended without a card to pay with. Choose a plan and pay to carry on.');
    expect(within(panel('Plan')).getByRole('button', { name: 'Choose a plan and pay' })).toBeTruthy();
  });

  it.each([
    ['Plan', 'GET /api/subscription/current'],
    ["This period's usage", 'GET /api/subscription/usage'],
    ['Payment methods', 'GET /api/subscription/payment-methods'],
    ['Invoices', 'GET /api/subscription/billing'],
  ])('the %s panel says it failed with the server message, and Retry asks again', async (name, call) => {
    const api = stubApi({ [call]: () => failure(503, 'Billing is catching up, try again in a minute') });
    await renderInSite(<SubscriptionScreen />);
    const alert = await within(panel(name)).findByRole('alert');
    expect(alert.textContent).toContain('Subscription settings failed to load.');
    expect(alert.textContent).toContain('Billing is catching up, try again in a minute');
    api.routes[call] = () => ok(call.endsWith('current') ? active : call.endsWith('usage') ? usage : call.endsWith('methods') ? [visa] : [invoice]);
    await userEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(within(panel(name)).queryByRole('alert')).toBeNull());
    expect(api.calls(call)).toHaveLength(2);
  });

  it('previews the proration of a change of plan, then changes it and shows the answer', async () => {
    const api = stubApi({ 'POST /api/subscription/change-plan': () => ok({ ...active, plan: 'developers', planName: 'Developers', changedAt: NOW.toISOString(), previousPlan: 'growth' }) });
    await renderInSite(<SubscriptionScreen />);
    const choice = await within(panel('Plan')).findByLabelText('New plan');
    expect([...(choice as HTMLSelectElement).options].map((option) => option.textContent)).toEqual(['Choose a plan…', 'Developers (£29/month)']);
    await userEvent.selectOptions(choice, 'p-dev');
    // Half of the 30-day period left: £14.50 for Developers, £49.50 of Growth given back.
    expect(panel('Plan').textContent).toContain('For the rest of this period: £14.50 for the new plan, less £49.50 unused on this one — £35.00 taken off your next invoice');
    await userEvent.click(within(panel('Plan')).getByRole('button', { name: 'Change to Developers' }));
    expect(await within(panel('Plan')).findByText('Developers')).toBeTruthy();
    expect(api.calls('POST /api/subscription/change-plan').map(([, init]) => JSON.parse(String(init?.body)))).toEqual([{ planId: 'p-dev' }]);
  });

  it.each([
    [false, 'Cancel at period end', 'Cancelled for the end of this period: it stays as it is until 1 Dec 2026.'],
    [true, 'Cancel now', 'Cancelled on 16 Nov 2026.'],
  ])('cancels (immediate: %s) after the confirm dialog', async (immediate, confirmLabel, sentence) => {
    const api = stubApi({
      'POST /api/subscription/cancel': () =>
        ok(immediate ? { ...active, status: 'canceled', canceledAt: NOW.toISOString() } : { ...active, cancelAtPeriodEnd: true }),
    });
    await renderInSite(<SubscriptionScreen />);
    await userEvent.click(await within(panel('Plan')).findByRole('button', { name: 'Cancel subscription' }));
    const dialog = screen.getByRole('dialog', { name: 'Cancel your subscription?' });
    if (immediate) await userEvent.click(within(dialog).getByLabelText(/^Now:/));
    await userEvent.click(within(dialog).getByRole('button', { name: confirmLabel }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(panel('Plan').textContent).toContain(sentence);
    expect(within(panel('Plan')).queryByRole('button', { name: 'Cancel subscription' })).toBeNull();
    expect(api.calls('POST /api/subscription/cancel').map(([, init]) => JSON.parse(String(init?.body)))).toEqual([{ immediate }]);
  });

  it('keeps the subscription when the dialog is dismissed', async () => {
    const api = stubApi();
    await renderInSite(<SubscriptionScreen />);
    await userEvent.click(await within(panel('Plan')).findByRole('button', { name: 'Cancel subscription' }));
    await userEvent.click(screen.getByRole('button', { name: 'Keep subscription' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.calls('POST /api/subscription/cancel')).toHaveLength(0);
  });

  it('adds a card through a SetupIntent, makes it the default and removes the old one', async () => {
    let methods = [visa];
    const api = stubApi({
      'GET /api/subscription/payment-methods': () => ok(methods),
      'POST /api/subscription/create-setup-intent': () => ok({ setupIntentId: 'seti_1', clientSecret: 'seti_1_secret_x' }),
      'POST /api/subscription/save-payment-method': () => {
        methods = [visa, mastercard];
        return ok(mastercard);
      },
      'POST /api/subscription/payment-method': () => {
        methods = [{ ...visa, isDefault: false }, { ...mastercard, isDefault: true }];
        return ok({ ...mastercard, isDefault: true });
      },
      'DELETE /api/subscription/payment-method/pm_1': () => ok([{ ...mastercard, isDefault: true }]),
    });
    await renderInSite(<SubscriptionScreen />);
    await userEvent.click(await within(panel('Payment methods')).findByRole('button', { name: 'Add a card' }));
    await userEvent.selectOptions(within(panel('Payment methods')).getByLabelText('Card'), 'pm_card_mastercard');
    await userEvent.click(within(panel('Payment methods')).getByRole('button', { name: 'Save card' }));
    expect(await within(panel('Payment methods')).findByText('Mastercard ending 4444')).toBeTruthy();
    expect(api.calls('POST /api/subscription/create-setup-intent')[0]![1]?.body).toBeUndefined();
    expect(api.calls('POST /api/subscription/save-payment-method').map(([, init]) => JSON.parse(String(init?.body)))).toEqual([
      { paymentMethodId: 'pm_card_mastercard' },
    ]);

    await userEvent.click(within(panel('Payment methods')).getByRole('button', { name: 'Make default (Mastercard ending 4444)' }));
    expect(await within(panel('Payment methods')).findByRole('button', { name: 'Make default (Visa ending 4242)' })).toBeTruthy();
    expect(api.calls('POST /api/subscription/payment-method').map(([, init]) => JSON.parse(String(init?.body)))).toEqual([{ paymentMethodId: 'pm_2' }]);

    await userEvent.click(within(panel('Payment methods')).getByRole('button', { name: 'Remove (Visa ending 4242)' }));
    await userEvent.click(within(screen.getByRole('dialog', { name: 'Remove Visa ending 4242?' })).getByRole('button', { name: 'Remove card' }));
    await waitFor(() => expect(within(panel('Payment methods')).queryByText('Visa ending 4242')).toBeNull());
    expect(api.calls('DELETE /api/subscription/payment-method/pm_1')).toHaveLength(1);
  });

  it('says why a card was refused and keeps the form', async () => {
    stubApi({
      'POST /api/subscription/create-setup-intent': () => ok({ setupIntentId: 'seti_2', clientSecret: 'seti_2_secret_x' }),
      'POST /api/subscription/save-payment-method': () => failure(402, 'Your card was declined.', 'card_declined'),
    });
    await renderInSite(<SubscriptionScreen />);
    await userEvent.click(await within(panel('Payment methods')).findByRole('button', { name: 'Add a card' }));
    await userEvent.click(within(panel('Payment methods')).getByRole('button', { name: 'Save card' }));
    expect((await within(panel('Payment methods')).findByRole('alert')).textContent).toBe('Your card was declined.');
    expect(within(panel('Payment methods')).getByRole('button', { name: 'Save card' })).toBeTruthy();
  });

  it("opens an invoice's lines and offers them as CSV", async () => {
    stubApi();
    await renderInSite(<SubscriptionScreen />);
    await userEvent.click(await within(panel('Invoices')).findByRole('button', { name: 'Show lines of SG-000001' }));
    const table = await within(panel('Invoices')).findByRole('table', { name: 'Lines of invoice SG-000001' });
    expect(within(table).getAllByRole('row').map((row) => row.textContent)).toEqual([
      'ItemQuantityAmount',
      'PlanGrowth, 1 Oct – 1 Nov1£99.00',
      'BYOM routing fees1,234 requests at £0.0011,234£1.23',
      'Extra seats2 seats, "6th and 7th"2£15.50',
      'Adjustments: usage of earlier periods recorded after their invoices',
      'Optimised requestsAdjusts SG-2026-000007: 1 Sept 2026 – 1 Oct 2026Adjustment to SG-2026-000007: 3 requests3£1.00',
      'Total£116.73',
    ]);
    const download = within(panel('Invoices')).getByRole('link', { name: 'Download SG-000001 (CSV)' });
    expect(download.getAttribute('download')).toBe('SG-000001.csv');
    expect(decodeURIComponent(download.getAttribute('href')!.replace('data:text/csv;charset=utf-8,', ''))).toBe(invoiceCsv(invoiceDetail));
  });
});

describe('the invoice CSV', () => {
  it('has a row per line and the total, in pounds, quoting what needs it', () => {
    expect(invoiceCsv(invoiceDetail).split('\r\n')).toEqual([
      'Invoice,From,To,Kind,Description,Quantity,Unit price (GBP),Amount (GBP)',
      'SG-000001,2026-10-01T00:00:00.000Z,2026-11-01T00:00:00.000Z,plan,"Growth, 1 Oct – 1 Nov",1,99.000000,99.00',
      'SG-000001,2026-10-01T00:00:00.000Z,2026-11-01T00:00:00.000Z,byom-routing-fee,"1,234 requests at £0.001",1234,0.001000,1.23',
      'SG-000001,2026-10-01T00:00:00.000Z,2026-11-01T00:00:00.000Z,extra-seats,"2 seats, ""6th and 7th""",2,8.000000,15.50',
      'SG-000001,2026-09-01T00:00:00.000Z,2026-10-01T00:00:00.000Z,optimised-uplift,Adjustment to SG-2026-000007: 3 requests,3,,1.00',
      'SG-000001,2026-10-01T00:00:00.000Z,2026-11-01T00:00:00.000Z,total,Total,,,116.73',
      '',
    ]);
  });
});

describe('the plan-required modal', () => {
  /** A screen's action that the server refuses for want of a plan, under the shell's watcher. */
  const openCheckout = vi.fn<(url: string) => void>();

  function Refused() {
    const action = useMutation({ mutationFn: () => apiData('POST', '/team/invite', { body: {} }) });
    return (
      <>
        <button type="button" onClick={() => action.mutate()}>
          Invite
        </button>
        <PlanRequiredModal openCheckout={openCheckout} />
      </>
    );
  }

  async function showRefused() {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
    const unwatch = watchPlanLimits(queryClient);
    render(
      <QueryClientProvider client={queryClient}>
        <Refused />
      </QueryClientProvider>,
    );
    return unwatch;
  }

  it('opens on a 402 plan_limit with the server message, offers the plans and goes to checkout for the one chosen', async () => {
    openCheckout.mockReset();
    const api = stubApi({
      'POST /api/team/invite': () => failure(402, 'Your Free trial plan includes 2 seats during the trial. Choose a paid plan to add more.', 'plan_limit'),
      'POST /api/subscription/create-checkout-session': () => ok({ sessionId: 'cs_test_1', url: 'http://127.0.0.1:4242/checkout/cs_test_1' }),
    });
    const unwatch = await showRefused();
    await userEvent.click(screen.getByRole('button', { name: 'Invite' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choose a plan' });
    expect(dialog.textContent).toContain('Your Free trial plan includes 2 seats during the trial. Choose a paid plan to add more.');
    const options = await within(dialog).findAllByRole('radio');
    expect(options.map((option) => option.closest('label')?.textContent)).toEqual(['Developers £29/month', 'Growth £99/month']);
    expect(within(dialog).getByRole('link', { name: 'Contact Sales' }).getAttribute('href')).toMatch(/^mailto:/);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue to checkout' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Choose a plan to continue.');
    await userEvent.click(within(dialog).getByLabelText(/Growth/));
    await waitFor(() => expect(within(dialog).queryByRole('alert')).toBeNull());
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue to checkout' }));
    await waitFor(() => expect(openCheckout).toHaveBeenCalledWith('http://127.0.0.1:4242/checkout/cs_test_1'));
    expect(api.calls('POST /api/subscription/create-checkout-session').map(([, init]) => JSON.parse(String(init?.body)))).toEqual([{ planId: 'p-growth' }]);
    unwatch();
  });

  it("opened from a trial's plan panel, has the trial's plan chosen and goes to its checkout", async () => {
    openCheckout.mockReset();
    const api = stubApi({
      'GET /api/subscription/current': () => ok(trialing),
      'POST /api/subscription/create-checkout-session': () => ok({ sessionId: 'cs_test_2', url: 'http://127.0.0.1:4242/checkout/cs_test_2' }),
    });
    await renderInSite(
      <>
        <SubscriptionScreen />
        <PlanRequiredModal openCheckout={openCheckout} />
      </>,
    );
    await userEvent.click(await within(panel('Plan')).findByRole('button', { name: 'Choose a plan and pay' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choose a plan' });
    expect(dialog.textContent).toContain('No card is saved to pay when your trial ends.');
    expect(((await within(dialog).findByLabelText(/Developers/)) as HTMLInputElement).checked).toBe(true);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue to checkout' }));
    await waitFor(() => expect(openCheckout).toHaveBeenCalledWith('http://127.0.0.1:4242/checkout/cs_test_2'));
    expect(api.calls('POST /api/subscription/create-checkout-session').map(([, init]) => JSON.parse(String(init?.body)))).toEqual([{ planId: 'p-dev' }]);
  });

  it('stays shut for other refusals, and says a failed checkout in the modal', async () => {
    const api = stubApi({
      'POST /api/team/invite': () => failure(403, 'Only team admins can invite.', 'forbidden'),
      'POST /api/subscription/create-checkout-session': () => failure(502, 'The payment provider did not answer.'),
    });
    const unwatch = await showRefused();
    await userEvent.click(screen.getByRole('button', { name: 'Invite' }));
    await waitFor(() => expect(api.calls('POST /api/team/invite')).toHaveLength(1));
    expect(screen.queryByRole('dialog')).toBeNull();

    api.routes['POST /api/team/invite'] = () => failure(402, 'Your Developers plan includes 2 optimised keys during the trial.', 'plan_limit');
    await userEvent.click(screen.getByRole('button', { name: 'Invite' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choose a plan' });
    await userEvent.click(await within(dialog).findByLabelText(/Developers/));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue to checkout' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('The payment provider did not answer.');
    await act(async () => {
      await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    });
    expect(screen.queryByRole('dialog')).toBeNull();
    unwatch();
  });
});
