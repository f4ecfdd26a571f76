// What every /api route answers, in zod: each route declares `response` with these, so
// /api/docs shows the real shape of `data`, the handlers are typed by them and each
// answer is checked against them (zod-provider.ts). A schema's input side is the wire
// (JSON), its output side what a handler gives: a time is a Date there, its ISO string
// on the wire. Objects are strict: a field an answer carries is a field documented here.
import { BUDGET_MODES, BUDGET_SCOPES, BUDGET_WINDOWS, DIGEST_FREQUENCIES, RECORDED_METERS, TEAM_ROLES } from '@spendgate/core';
import { z } from 'zod';

/** A time: a Date in the handler, ISO 8601 in UTC on the wire (as JSON.stringify writes it). */
export const Timestamp = z.codec(z.iso.datetime(), z.date(), {
  decode: (text) => new Date(text),
  encode: (date) => date.toISOString(),
});

/** The envelope of every successful answer: `data` is what the route gives. */
export const answer = <Data extends z.ZodType>(data: Data) => z.strictObject({ success: z.literal(true), data, message: z.string() });

/** The envelope of every failure (envelope.ts): `field` names a wrong field, `errors` lists a form's problems. */
export const ErrorAnswer = z.strictObject({
  success: z.literal(false),
  data: z.null(),
  message: z.string(),
  code: z.string(),
  field: z.string().optional(),
  errors: z.array(z.string()).optional(),
  requestId: z.string(),
});

const JsonObject = z.record(z.string(), z.unknown());

// Accounts

export const Subscription = z.strictObject({
  plan: z.enum(['free-trial', 'developers', 'growth', 'enterprise']),
  status: z.enum(['trialing', 'active', 'past_due', 'paused', 'canceled']),
  trialEnd: z.iso.datetime().nullable(),
  isTrialing: z.boolean(),
});

/** A payment provider's checkout as the billing pages read it: whether it was paid decides what they say. */
export const CheckoutSession = z.strictObject({
  id: z.string(),
  status: z.enum(['open', 'complete', 'expired']),
  paymentStatus: z.enum(['paid', 'unpaid', 'no_payment_required']),
});

const PlanSlugs = z.enum(['free-trial', 'developers', 'growth', 'enterprise']);

/** The signed-in account's own subscription (it pays for the teams the account created). */
export const CurrentSubscription = z.strictObject({
  id: z.guid(),
  plan: PlanSlugs,
  planName: z.string(),
  status: z.enum(['trialing', 'active', 'past_due', 'paused', 'canceled']),
  trialEnd: Timestamp.nullable(),
  isTrialing: z.boolean(),
  currentPeriodStart: Timestamp.nullable(),
  currentPeriodEnd: Timestamp.nullable(),
  cancelAtPeriodEnd: z.boolean(),
  canceledAt: Timestamp.nullable(),
  /** Whether a default card is saved (what billing after the trial needs). */
  hasPaymentMethod: z.boolean(),
});

/** A plan change: the subscription after it, when it took effect and the plan before. */
export const PlanChange = z.strictObject({ ...CurrentSubscription.shape, changedAt: Timestamp, previousPlan: PlanSlugs });

/** A saved card; `id` is its Stripe payment method id (pm_…). */
export const PaymentMethod = z.strictObject({
  id: z.string(),
  brand: z.string(),
  last4: z.string(),
  expMonth: z.number().int(),
  expYear: z.number().int(),
  isDefault: z.boolean(),
  createdAt: Timestamp,
});

/** Where to send the browser: Stripe Checkout's page for this session. */
export const CheckoutStarted = z.strictObject({ sessionId: z.string(), url: z.string() });

/** What Stripe.js needs to collect a card: confirm the SetupIntent with its client secret, then save its payment method. */
export const SetupIntentStarted = z.strictObject({ setupIntentId: z.string(), clientSecret: z.string() });

/** A Stripe webhook delivery taken: its event is kept and will be processed once. */
export const WebhookReceipt = z.strictObject({ received: z.literal(true), eventId: z.string() });

export const PublicUser = z.strictObject({
  id: z.guid(),
  email: z.string(),
  name: z.string(),
  avatar: z.string().nullable(),
  metadata: JsonObject,
  emailVerified: z.boolean(),
  subscription: Subscription.nullable(),
});

export const Session = z.strictObject({ token: z.string(), user: PublicUser });
export const GoogleSession = z.strictObject({ token: z.string(), user: PublicUser, isNewUser: z.boolean() });
export const Profile = z.strictObject({ user: PublicUser });
export const EmailCheck = z.strictObject({ exists: z.boolean() });
/** How the signed-in account can sign in. */
export const SignInMethods = z.strictObject({
  password: z.boolean(),
  google: z.boolean(),
  singleSignOn: z.array(z.strictObject({ teamId: z.string(), teamName: z.string(), issuer: z.string(), linkedAt: Timestamp })),
});
/** Google Identity Services' script and our OAuth client id, for the console's button; null when Google sign-in is off. */
export const SignInOptions = z.strictObject({ google: z.strictObject({ clientId: z.string(), scriptUrl: z.string() }).nullable() });
/** A sign-up code answers no session; a code confirmed with the account's session answers a full one. */
export const CodeVerified = z.union([
  z.strictObject({ verified: z.boolean(), user: z.null() }),
  z.strictObject({ verified: z.boolean(), token: z.string(), user: PublicUser }),
]);

// Subscriptions, usage against the plan, invoices

const SubscriptionStatus = z.enum(['trialing', 'active', 'past_due', 'paused', 'canceled']);
const PlanRef = z.strictObject({ slug: z.enum(['free-trial', 'developers', 'growth', 'enterprise']), name: z.string() });
const InvoiceLineKind = z.enum(['plan', 'optimised-uplift', 'optimised-minimum-fee', 'byom-routing-fee', 'advisor-insights', 'extra-keys', 'extra-groups', 'extra-seats', 'recorded-usage']);
const Meter = z.enum(RECORDED_METERS);
const LineCounts = z.enum(['usage-events', 'advisor-insights', 'usage-records', 'plan-units']).nullable();
/** What a team uses of a plan allowance; `included` null: unlimited; `canAddMore`: within it, or past it on a subscription that charges extras. */
const Allowance = z.strictObject({ used: z.number().int(), included: z.number().int().nullable(), extra: z.number().int(), canAddMore: z.boolean() });
const Allowances = z.strictObject({ seats: Allowance, syntheticGroups: Allowance, optimisedKeys: Allowance });

/** What a team may do now under the subscription that pays for it. */
export const SubscriptionAccess = z.strictObject({
  teamId: z.guid(),
  plan: PlanRef,
  /** In force now: a trial past its end reads active (billing started) or paused (no payment method). */
  status: SubscriptionStatus,
  trialEnd: Timestamp.nullable(),
  trialDaysLeft: z.number().int().nullable(),
  hasPaymentMethod: z.boolean(),
  /** Whether the caller's own account pays for the team (else its creator's does). */
  paidByYou: z.boolean(),
  /** Which key kinds the data plane serves: BYOK always; optimised and BYOM while the subscription is trialing, active or past due. */
  keys: z.strictObject({ byok: z.boolean(), optimised: z.boolean(), byom: z.boolean() }),
  /** Why optimised and BYOM keys are stopped (the 402 `payment_required` they answer says the same); null when they are not. */
  stoppedBecause: z.string().nullable(),
  allowances: Allowances,
  lookBackDays: z.number().int().nullable(),
  alertChannels: z.array(z.enum(['email', 'slack', 'teams', 'sms'])),
  /** The console screen where the plan is chosen and a payment method added. */
  subscriptionPath: z.string(),
});

/** One line of an invoice (or of a period priced so far): amounts in GBP micros as integer strings and whole pence. */
const InvoiceLineFields = {
  kind: InvoiceLineKind,
  /** The meter a recorded-usage line counts; null for every other line. */
  meter: Meter.nullable(),
  /** The team whose usage it counts; null for the plan fee. */
  teamId: z.guid().nullable(),
  /** The plan whose price it charges (plan fee, extra units); null for usage billed per event. */
  planSlug: z.string().nullable(),
  windowStart: Timestamp,
  windowEnd: Timestamp,
  description: z.string(),
  /** Requests, insights, 1 for a plan, or the most extra units live at once. */
  quantity: z.number().int(),
  unitAmountMicros: z.string().nullable(),
  amountMicros: z.string(),
  amountPence: z.number().int(),
  /** Requests in it whose cost was unknown: counted, billed nothing. */
  unpricedRequests: z.number().int(),
  /**
   * An adjustment line: usage of an earlier invoice's window (windowStart–windowEnd) that
   * was recorded after that invoice was built (from `arrivedFrom`), billed on this one; null
   * for every other line.
   */
  adjusts: z.strictObject({ invoiceId: z.guid(), number: z.string(), arrivedFrom: Timestamp }).nullable(),
};

/** A billing period's usage priced as its invoice would be. */
export const SubscriptionUsage = z.strictObject({
  /** The period, and how far it is counted (now, or its end); `trial`: the free trial, of which nothing is charged. */
  period: z.strictObject({ start: Timestamp, end: Timestamp, until: Timestamp, trial: z.boolean() }),
  plan: PlanRef,
  status: SubscriptionStatus,
  charged: z.boolean(),
  currency: z.literal('GBP'),
  lines: z.array(z.strictObject(InvoiceLineFields)),
  totalPence: z.number().int(),
  /** Each team the subscription pays for, with its allowances used now. */
  teams: z.array(z.strictObject({ teamId: z.guid(), name: z.string(), allowances: Allowances })),
});

export const Invoice = z.strictObject({
  id: z.guid(),
  /** Given when it is finalised, gap-free per year: SG-2026-000001 and on (earlier invoices keep their SG-000123); null for a draft. */
  number: z.string().nullable(),
  status: z.enum(['draft', 'open', 'paid', 'void']),
  currency: z.literal('GBP'),
  periodStart: Timestamp,
  periodEnd: Timestamp,
  /** Where billing stopped: the period's end, or an immediate cancellation. */
  billedUntil: Timestamp,
  /** The sum of the lines' pence. */
  totalPence: z.number().int(),
  createdAt: Timestamp,
  finalizedAt: Timestamp.nullable(),
  paidAt: Timestamp.nullable(),
  voidedAt: Timestamp.nullable(),
  /** The nightly proof: when it last recounted the invoice, and whether every line still equalled what it counts (null: not yet). */
  proof: z.strictObject({ checkedAt: Timestamp.nullable(), ok: z.boolean().nullable() }),
});

export const InvoiceDetail = Invoice.extend({
  lines: z.array(
    z.strictObject({
      id: z.guid(),
      ...InvoiceLineFields,
      /** What its items are; null for a plan fee, which is the plan in force over its window. */
      counts: LineCounts,
      /** Where to read them, a page at a time. */
      itemsUrl: z.string().nullable(),
      /** What the last proof counted for the line (null: not proved yet). */
      proof: z.strictObject({ foundQuantity: z.number().int().nullable(), foundMicros: z.string().nullable() }),
    }),
  ),
});

/** A page of what an invoice line counts: usage events (id: the request id), advisor insights, recorded usage, or units (a seat's user, a group, a key) live from `at` to `until`. */
export const InvoiceLineItems = z.strictObject({
  lineId: z.guid(),
  counts: LineCounts,
  items: z.array(z.strictObject({ id: z.string(), at: Timestamp, until: Timestamp.nullable(), amountMicros: z.string().nullable(), detail: z.string() })),
  nextCursor: z.string().nullable(),
});

/** A meter's quantity recorded for a team; `replayed`: the identifier had recorded it already, and nothing new was. */
export const UsageRecord = z.strictObject({
  id: z.guid(),
  teamId: z.guid(),
  meter: Meter,
  quantity: z.number().int(),
  /** The plan's fee for the meter when it happened, and the quantity's amount: GBP micros as integer strings. */
  unitAmountMicros: z.string(),
  amountMicros: z.string(),
  identifier: z.string(),
  timestamp: Timestamp,
  description: z.string(),
  replayed: z.boolean(),
});

// Site: plans, FAQs, the contact form

export const Plan = z.strictObject({
  id: z.guid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  /** GBP a month; null for a plan arranged with sales. */
  price: z.number().nullable(),
  features: z.array(z.string()),
  createdAt: Timestamp,
});

/** The subscription with its plan, its default card and when it is next invoiced (null when it ends). */
export const SubscriptionDetails = z.strictObject({
  subscription: CurrentSubscription,
  plan: Plan,
  defaultPaymentMethod: PaymentMethod.nullable(),
  nextInvoiceAt: Timestamp.nullable(),
});

export const Faq = z.strictObject({ id: z.guid(), question: z.string(), answer: z.string(), position: z.number().int() });
export const Deleted = z.strictObject({ id: z.guid() });

/** The stored definition (`form_fields.fields`): each field's element, attributes and settings, as the site renders them. */
export const ContactForm = z.strictObject({
  id: z.guid(),
  title: z.string(),
  form_fields: z.looseObject({ fields: z.array(z.unknown()) }),
  createdAt: Timestamp,
});

// Teams

export const Team = z.strictObject({
  id: z.guid(),
  name: z.string(),
  description: z.string(),
  timeZone: z.string(),
  createdAt: Timestamp,
  /** Your role in it (absent where the answer is about the team alone). */
  role: z.enum(TEAM_ROLES).optional(),
});

export const TeamMember = z.strictObject({
  id: z.guid(),
  email: z.string(),
  name: z.string(),
  avatar: z.string().nullable(),
  role: z.enum(TEAM_ROLES),
  joinedAt: Timestamp,
});

export const TeamInvitation = z.strictObject({ id: z.guid(), teamId: z.guid(), email: z.string(), role: z.enum(TEAM_ROLES), expiresAt: Timestamp });
/** What an invitation's token opens, before it is accepted: the invited e-mail signs up, or logs in when it has an account. */
export const TeamInvitationPreview = z.strictObject({
  teamName: z.string(),
  email: z.string(),
  role: z.enum(TEAM_ROLES),
  expiresAt: Timestamp,
  accountExists: z.boolean(),
});
/** A team's seats: what its plan includes (null: custom), what members and pending invitations take, what one more costs a month. */
export const TeamSeats = z.strictObject({
  plan: z.string(),
  planSlug: z.enum(['free-trial', 'developers', 'growth', 'enterprise']),
  /** Whether the plan is paid for: a trial refuses seats over those included, a paid plan charges them. */
  paying: z.boolean(),
  included: z.number().int().nullable(),
  used: z.number().int(),
  pending: z.number().int(),
  currency: z.literal('GBP'),
  /** Micro-units of `currency` a month per seat over those included, as an integer string; null when the plan has none. */
  extraSeatMonthlyMicros: z.string().nullable(),
});
export const TeamInvitationAccepted = z.strictObject({ token: z.string(), user: PublicUser, team: Team });
export const TeamMemberRemoved = z.strictObject({ teamId: z.guid(), userId: z.guid() });

// Usage

/** The range and filters a usage answer was computed for (the team's calendar days). */
const UsageScope = {
  teamId: z.guid(),
  groupId: z.guid().optional(),
  keyId: z.guid().optional(),
  connectionId: z.guid().optional(),
  model: z.string().optional(),
  provider: z.string().optional(),
  startDate: z.string(),
  endDate: z.string(),
  timeZone: z.string(),
};

/** Totals in the team's currency (GBP: what the usage counted on its budgets) with the provider's list price (USD) beside. */
const UsageAmounts = {
  currency: z.literal('GBP'),
  /** GBP, decimal. */
  totalCost: z.string(),
  /** The same in micro-pounds, an integer string. */
  totalCostMicros: z.string(),
  costCurrencyUsd: z.literal('USD'),
  /** The providers' list price, USD, decimal. */
  totalCostUsd: z.string(),
  totalCostUsdMicros: z.string(),
  /** What Spendgate charged (optimised and BYOM keys), GBP, decimal. */
  billedCost: z.string(),
  requests: z.number().int(),
  /** Requests answered 400 or above. */
  errors: z.number().int(),
  totalTokens: z.number().int(),
  inputTokens: z.number().int(),
  cachedReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  outputTokens: z.number().int(),
  reasoningTokens: z.number().int(),
  unpricedRequests: z.number().int(),
  estimatedRequests: z.number().int(),
};

/** Usage totals over a range, from the rollups: every totals answer (a team, a group, a key, a connection). */
export const UsageTotals = z.strictObject({
  ...UsageScope,
  ...UsageAmounts,
  /** From the latency histogram, within its bucket's width; null without requests. */
  latencyP50Ms: z.number().int().nullable(),
  latencyP95Ms: z.number().int().nullable(),
});

export const UsageSeries = z.strictObject({
  ...UsageScope,
  ...UsageAmounts,
  granularity: z.enum(['day', 'hour']),
  /** Every day (yyyy-mm-dd) or hour (ISO instant) of the range, zeros included. */
  series: z.array(z.strictObject({ date: z.string(), cost: z.string(), costUsd: z.string(), requests: z.number().int(), totalTokens: z.number().int() })),
});

const MonthDays = z.strictObject({
  total: z.string(),
  days: z.array(z.strictObject({ date: z.string(), cost: z.string(), cumulativeCost: z.string() })),
});

export const UsageMonthToDate = z.strictObject({
  ...UsageScope,
  currency: z.literal('GBP'),
  thisMonth: MonthDays,
  /** Null when the plan's look-back does not reach its first day. */
  lastMonth: MonthDays.nullable(),
});

export const UsageDistribution = z.strictObject({
  ...UsageScope,
  by: z.enum(['model', 'provider', 'key', 'group', 'connection']),
  currency: z.literal('GBP'),
  totalCost: z.string(),
  items: z.array(
    z.strictObject({
      key: z.string(),
      label: z.string(),
      cost: z.string(),
      costUsd: z.string(),
      requests: z.number().int(),
      totalTokens: z.number().int(),
      /** Part of the range's cost (of its requests when nothing cost anything), 0 to 1. */
      share: z.number(),
      unpricedRequests: z.number().int(),
    }),
  ),
});

const RequestLogItem = {
  requestId: z.string(),
  occurredAt: z.string(),
  /** Null (with keyId) for a call the team made without a key: the AI advisor's wording, route `advisor-wording`. */
  groupId: z.guid().nullable(),
  /** Null once the group is deleted. */
  groupName: z.string().nullable(),
  keyId: z.guid().nullable(),
  keyName: z.string().nullable(),
  keyPrefix: z.string().nullable(),
  keyKind: z.string(),
  provider: z.string(),
  model: z.string(),
  endpoint: z.string(),
  /** How the model was chosen (requested, auto: …, fallback: …). */
  route: z.string().nullable(),
  statusCode: z.number().int(),
  streamed: z.boolean(),
  /** Usage estimated by Spendgate (the provider reported none, e.g. a cut stream). */
  estimated: z.boolean(),
  /** No price known for the model: cost null, never 0. */
  unpriced: z.boolean(),
  inputTokens: z.number().int(),
  cachedReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  outputTokens: z.number().int(),
  reasoningTokens: z.number().int(),
  totalTokens: z.number().int(),
  currency: z.literal('GBP'),
  cost: z.string().nullable(),
  costUsd: z.string().nullable(),
  latencyMs: z.number().int(),
};

export const RequestLogPage = z.strictObject({
  teamId: z.guid(),
  startDate: z.string(),
  endDate: z.string(),
  timeZone: z.string(),
  items: z.array(z.strictObject(RequestLogItem)),
  /** Pass as cursor= for the next page; null on the last. */
  nextCursor: z.string().nullable(),
});

export const RequestLogEntry = z.strictObject({
  ...RequestLogItem,
  billingRule: z.string().nullable(),
  billedCost: z.string().nullable(),
  fxRatePpm: z.string().nullable(),
  priceVersion: z.string().nullable(),
});

/** How far a demo team's sample usage has been recorded: in the background, a day at a time, oldest first. */
const DemoStatus = {
  state: z.enum(['filling', 'filled']),
  days: z.number().int(),
  daysFilled: z.number().int(),
  /** Sample requests recorded so far. */
  requests: z.number().int(),
};

/** A demo team just made: its usage is being recorded (`filling`), and shows as each day lands. */
export const DemoTeam = z.strictObject({
  teamId: z.guid(),
  name: z.string(),
  ...DemoStatus,
});

/** How far behind the primary the caller's usage figures may be (read replicas): 0 when they are read from the primary. */
export const DataFreshness = z.strictObject({
  behindSeconds: z.number().nonnegative(),
  replicas: z.array(z.strictObject({ lagSeconds: z.number().nonnegative().nullable(), serving: z.boolean() })),
});

/** A team's setup so far (what the caller can see of it) and, for its admins, this month's usage in total and per day of its calendar. */
export const TeamOverview = z.strictObject({
  teamId: z.guid(),
  setup: z.strictObject({
    connections: z.number().int(),
    groups: z.number().int(),
    /** Live (unrevoked) keys in the groups the caller can see. */
    keys: z.number().int(),
    /** When the team's first request was recorded; null before any. */
    firstRequestAt: Timestamp.nullable(),
  }),
  /** A demo team's sample usage, how far it has been recorded; null for a team that is not a demo team. */
  demo: z.strictObject(DemoStatus).nullable(),
  /** From the first day of this month the plan's look-back shows; null unless the caller is a team admin. */
  thisMonth: UsageTotals.nullable(),
  /** Every day of thisMonth, oldest first, its cost in GBP micros (an integer string); empty when thisMonth is null. */
  daily: z.array(z.strictObject({ date: z.string(), requests: z.number().int(), totalCostMicros: z.string() })),
});

// Synthetic groups, their members, keys and invitations

const MemberUser = z.strictObject({ id: z.guid(), email: z.string(), name: z.string(), avatar: z.string().nullable() });
export const GroupMember = z.strictObject({ user: MemberUser, role: z.string(), joinedAt: Timestamp });
export const AddedMembers = z.strictObject({ addedUsers: z.array(z.strictObject({ user: MemberUser, role: z.string() })) });
export const GroupMemberRole = z.strictObject({ groupId: z.guid(), userId: z.guid(), role: z.string() });
export const GroupMemberRemoved = z.strictObject({ groupId: z.guid(), userId: z.guid() });

/** A key's settings as stored (see core's KeySettings). */
export const KeySettingsAnswer = z.strictObject({
  rateLimit: z.strictObject({ requestsPerMinute: z.number().optional(), tokensPerMinute: z.number().optional() }).optional(),
  timeoutMs: z.number().optional(),
  routing: z
    .strictObject({
      weights: z.strictObject({ cost: z.number(), speed: z.number(), accuracy: z.number() }).optional(),
      fallbacks: z.array(z.string()).optional(),
    })
    .optional(),
  modelOverrides: z.array(z.strictObject({ replace: z.string(), with: z.string(), connectionId: z.guid().optional() })).optional(),
  maxOutputTokens: z.number().optional(),
});

export const IssuedKey = z.strictObject({
  id: z.guid(),
  groupId: z.guid(),
  connectionId: z.guid().nullable(),
  kind: z.enum(['byok', 'optimised', 'byom']),
  name: z.string(),
  /** The start of the key, to recognise it. */
  prefix: z.string(),
  settings: KeySettingsAnswer,
  createdAt: Timestamp,
});
/** A key as its group lists it: with when it last served a request (its newest usage event), null if never. */
export const ListedKey = z.strictObject({ ...IssuedKey.shape, lastUsedAt: Timestamp.nullable() });
/** `key` is the key itself, shown this once. */
export const CreatedKey = z.strictObject({ key: z.string(), providerKey: IssuedKey });
export const RevokedKey = z.strictObject({ id: z.guid(), groupId: z.guid() });

export const Group = z.strictObject({
  id: z.guid(),
  teamId: z.guid(),
  name: z.string(),
  description: z.string(),
  createdAt: Timestamp,
  /** Your effective role in the group; null when you have none. */
  role: z.string().nullable(),
  syntheticGroupUsers: z.array(GroupMember),
  syntheticGroupProviderKeys: z.array(ListedKey),
  /** The last 30 days (from the plan's look-back when shorter). */
  usage: UsageTotals,
});
export const GroupInvitationAccepted = z.strictObject({ group: Group });

export const GroupInvitation = z.strictObject({
  id: z.guid(),
  syntheticGroupId: z.guid().nullable(),
  email: z.string(),
  role: z.string(),
  status: z.enum(['pending', 'accepted', 'revoked', 'expired']),
  expiresAt: Timestamp,
  createdAt: Timestamp,
});

// Providers and connections

export const Provider = z.strictObject({
  id: z.string(),
  name: z.string(),
  /** The wire format its native API speaks. */
  format: z.string(),
  authFields: z.array(z.strictObject({ name: z.string(), label: z.string(), type: z.string(), required: z.boolean() })),
  baseUrl: z.strictObject({ default: z.string().nullable(), required: z.boolean(), rules: z.string() }),
  /** The models the price catalog lists for it. */
  models: z.array(z.string()),
  /** Settings a connection to it may give in `options` (e.g. Azure's apiVersion); empty means the provider's default. */
  optionFields: z.array(z.strictObject({ name: z.string(), label: z.string(), help: z.string(), placeholder: z.string() })),
});

export const Connection = z.strictObject({
  id: z.guid(),
  teamId: z.guid(),
  provider: z.string(),
  name: z.string(),
  baseUrl: z.string(),
  /** Why the base URL is refused now (e.g. after the allow-list changed); null when it is allowed. */
  baseUrlProblem: z.string().nullable(),
  status: z.string(),
  options: JsonObject,
  /** The API key's last four characters, masked. */
  apiKeyTail: z.string(),
  createdAt: Timestamp,
});
/** Usage this month (the team's calendar) from `startDate` (its first day the plan's look-back shows) to today. */
export const MonthUsage = z.strictObject({ startDate: z.string(), endDate: z.string(), ...UsageAmounts });
/** A connection as the list shows it: with this month's usage through it, null unless the caller is a team admin. */
export const ListedConnection = Connection.extend({ thisMonth: MonthUsage.nullable() });
export const NewConnection = z.strictObject({ newConnection: Connection });
export const ConnectionStatusSet = z.strictObject({ id: z.guid(), status: z.enum(['active', 'disabled']) });
export const ConnectionTested = z.strictObject({ ok: z.boolean(), provider: z.string(), baseUrl: z.string(), latencyMs: z.number() });

// Budgets and prices

export const Budget = z.strictObject({
  id: z.guid(),
  teamId: z.guid(),
  scope: z.enum(BUDGET_SCOPES),
  scopeId: z.guid(),
  currency: z.string(),
  /** GBP, decimal, like spent and remaining. */
  amount: z.string(),
  window: z.enum(BUDGET_WINDOWS),
  mode: z.enum(BUDGET_MODES),
  alertAt: z.array(z.number()),
  spent: z.string(),
  /** Held by requests under way (their worst case until they settle), in the same currency. */
  reserved: z.string(),
  remaining: z.string(),
  /** When the window ends; null for a total budget. */
  resetsAt: Timestamp.nullable(),
  unpricedModels: z.enum(['refused', 'admitted']),
});

const UsdPerMTok = z.string().nullable();
export const PriceOverride = z.strictObject({
  id: z.guid(),
  provider: z.string(),
  model: z.string(),
  currency: z.string(),
  inputPerMTok: UsdPerMTok,
  outputPerMTok: UsdPerMTok,
  cachedReadPerMTok: UsdPerMTok,
  cacheWrite5mPerMTok: UsdPerMTok,
  cacheWrite1hPerMTok: UsdPerMTok,
  updatedAt: Timestamp,
});
export const UnpricedPolicy = z.strictObject({ allowUnpricedModels: z.boolean() });

// The audit log

const AuditEntry = z.strictObject({
  id: z.string(),
  seq: z.string(),
  teamId: z.guid(),
  actor: z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('system') }), z.strictObject({ kind: z.literal('user'), userId: z.guid(), email: z.string().nullable() })]),
  actorUserId: z.guid().nullable(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  details: JsonObject,
  before: JsonObject.nullable(),
  after: JsonObject.nullable(),
  createdAt: Timestamp,
  hash: z.string(),
});

export const AuditPage = z.strictObject({
  entries: z.array(AuditEntry),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
});

export const AuditVerification = z.strictObject({
  teamId: z.guid(),
  ok: z.boolean(),
  checked: z.number().int(),
  anchorSeq: z.string(),
  headSeq: z.string(),
  broken: z.strictObject({ seq: z.string(), id: z.string().nullable(), reason: z.enum(['edited', 'missing', 'relinked', 'tail-missing']) }).nullable(),
  verifiedAt: Timestamp,
});

export const AuditRetention = z.strictObject({ teamId: z.guid(), auditRetentionDays: z.number().int(), defaultDays: z.number().int() });

// Spend alerts

/** An alert channel: never its secret; a webhook by its host only. */
/** A sample digest on its way: to whom, and the period it covers. */
export const SpendDigestPreview = z.strictObject({ to: z.string(), frequency: z.enum(DIGEST_FREQUENCIES), firstDay: z.string(), lastDay: z.string() });
/** A team admin's own spend digest: how often (null: none), the team's zone, and the next one's days and time. */
export const SpendDigest = z.strictObject({
  teamId: z.string(),
  frequency: z.enum(DIGEST_FREQUENCIES).nullable(),
  timeZone: z.string(),
  next: z.strictObject({ firstDay: z.string(), lastDay: z.string(), dueAt: Timestamp }).nullable(),
});
export const AlertChannel = z.strictObject({
  id: z.guid(),
  teamId: z.guid(),
  kind: z.enum(['email', 'slack', 'teams', 'sms']),
  name: z.string(),
  /** Where it sends: addresses, the SMS number, or the webhook's host. */
  target: z.string(),
  createdAt: Timestamp,
});

const AlertDeliveryAttempt = z.strictObject({
  attempt: z.number().int(),
  at: Timestamp,
  outcome: z.enum(['sent', 'logged', 'failed']),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
});

/** One alert to one channel: its idempotency key is `<alert id>:<channel id>`. */
const AlertDelivery = z.strictObject({
  id: z.guid(),
  channelId: z.guid().nullable(),
  channelKind: z.enum(['email', 'slack', 'teams', 'sms']),
  channelName: z.string(),
  idempotencyKey: z.string(),
  status: z.enum(['pending', 'retrying', 'sent', 'logged', 'failed']),
  attempts: z.array(AlertDeliveryAttempt),
  lastError: z.string().nullable(),
  sentAt: Timestamp.nullable(),
});

export const AlertEvent = z.strictObject({
  id: z.guid(),
  teamId: z.guid(),
  /** threshold: a budget's alert threshold; breach: the forecast projects the budget to run out; spike: a day far above its forecast, or an hour far above its band; gpu-idle: a GPU holding memory while idle; test: "Send test". */
  kind: z.enum(['threshold', 'breach', 'spike', 'gpu-idle', 'test']),
  budgetId: z.guid().nullable(),
  thresholdPercent: z.number().int().nullable(),
  /** The budget window it fired in (its first local day, or 'total'); a spike's day, or its hour's local start ('yyyy-mm-dd hh:mm'). */
  window: z.string().nullable(),
  subject: z.string(),
  message: z.string(),
  createdAt: Timestamp,
  deliveries: z.array(AlertDelivery),
});

export const AlertTestStarted = z.strictObject({ alertId: z.guid(), deliveryId: z.guid() });

// GPU infrastructure analytics (Enterprise)

/** A GPU as answers name it: its UUID, model, host, index on the host and cluster, as last reported. */
const GpuRef = {
  gpuId: z.guid(),
  gpuUuid: z.string(),
  model: z.string().nullable(),
  host: z.string().nullable(),
  index: z.number().int().nullable(),
  cluster: z.string(),
};

/** A key GPU agents push with; its plaintext is answered once, when issued. */
export const GpuIngestKey = z.strictObject({ id: z.guid(), name: z.string(), prefix: z.string(), createdAt: Timestamp, lastUsedAt: Timestamp.nullable() });
export const GpuIngestKeyIssued = GpuIngestKey.extend({ key: z.string() });

/** A DCGM exporter scraped for a cluster, with its last scrape's outcome. */
export const GpuExporter = z.strictObject({ id: z.guid(), cluster: z.string(), url: z.string(), createdAt: Timestamp, lastScrapedAt: Timestamp.nullable(), lastError: z.string().nullable() });

export const GpuSettings = z.strictObject({
  teamId: z.guid(),
  /** A minute whose peak utilisation is below this is quiet… */
  idleBelowPct: z.number().int(),
  /** …and a quiet stretch this long is idle. */
  idleAfterMinutes: z.number().int(),
  /** GBP an hour per GPU model (decimal strings). */
  prices: z.array(z.strictObject({ model: z.string(), perHour: z.string() })),
  /** The models the team's GPUs report, to price. */
  models: z.array(z.string()),
  clusters: z.array(z.strictObject({ id: z.guid(), name: z.string() })),
  ingestKeys: z.array(GpuIngestKey),
  exporters: z.array(GpuExporter),
});

/** What a pushed batch added: GPUs named, new samples (one already stored counts once), processes seen. */
export const GpuIngested = z.strictObject({ kind: z.enum(['gpus', 'compute-apps']), gpus: z.number().int(), samples: z.number().int(), processes: z.number().int() });

const GpuRange = { from: Timestamp, to: Timestamp };

/** Per UTC hour: GPUs reporting, their mean utilisation and minutes in each state. */
export const GpuUtilization = z.strictObject({
  ...GpuRange,
  hours: z.array(
    z.strictObject({
      hour: Timestamp,
      gpus: z.number().int(),
      meanUtilizationPct: z.number().nullable(),
      activeMinutes: z.number().int(),
      idleHeldMinutes: z.number().int(),
      idleMinutes: z.number().int(),
    }),
  ),
});

/** Each GPU reporting in the range, and per GPU and UTC hour its mean utilisation, minutes reported and idle. */
export const GpuHeatmap = z.strictObject({
  ...GpuRange,
  gpus: z.array(z.strictObject(GpuRef)),
  cells: z.array(z.strictObject({ gpuId: z.guid(), hour: Timestamp, meanUtilizationPct: z.number().nullable(), minutes: z.number().int(), idleMinutes: z.number().int() })),
});

/** Idle stretches, newest first: a GPU's consecutive idle minutes, the process that held the most memory, and the GBP they cost (null: the model has no price). */
export const GpuIdleList = z.strictObject({
  ...GpuRange,
  stretches: z.array(
    z.strictObject({
      ...GpuRef,
      start: Timestamp,
      end: Timestamp,
      /** The GPU's newest minute is in it: still idle. */
      ongoing: z.boolean(),
      heldMinutes: z.number().int(),
      idleMinutes: z.number().int(),
      peakMemoryMiB: z.number().nullable(),
      process: z.strictObject({ pid: z.number().int(), name: z.string(), memoryMiB: z.number().nullable() }).nullable(),
      wasted: z.string().nullable(),
    }),
  ),
});

/** Per GPU model: the energy drawn in the range, and per UTC hour its GPUs reporting and their mean draw. */
export const GpuPower = z.strictObject({
  ...GpuRange,
  models: z.array(
    z.strictObject({
      model: z.string().nullable(),
      energyKWh: z.number(),
      hours: z.array(z.strictObject({ hour: Timestamp, gpus: z.number().int(), meanPowerW: z.number().nullable() })),
    }),
  ),
});

/** Idle minutes and their cost in GBP: null when none could be priced; `unpricedMinutes` on models without a price. */
const GpuWasteFigures = {
  heldMinutes: z.number().int(),
  idleMinutes: z.number().int(),
  wasted: z.string().nullable(),
  unpricedMinutes: z.number().int(),
};

export const GpuWaste = z.strictObject({
  ...GpuRange,
  currency: z.literal('GBP'),
  total: z.strictObject(GpuWasteFigures),
  clusters: z.array(z.strictObject({ cluster: z.string(), ...GpuWasteFigures })),
  hosts: z.array(z.strictObject({ cluster: z.string(), host: z.string().nullable(), ...GpuWasteFigures })),
  gpus: z.array(z.strictObject({ ...GpuRef, ...GpuWasteFigures })),
  /** Idle-held minutes by the process holding the most memory in each (pid null: none reported). */
  processes: z.array(z.strictObject({ ...GpuRef, pid: z.number().int().nullable(), processName: z.string().nullable(), peakMemoryMiB: z.number().nullable(), ...GpuWasteFigures })),
});

// The AI advisor

/** One insight: what a detector found, its evidence and amounts (GBP decimal strings), its change, price and realised saving. */
export const AdvisorInsight = z.strictObject({
  id: z.guid(),
  kind: z.enum(['cheaper-model', 'reasoning-heavy', 'cheaper-provider', 'duplicate-requests', 'oversized-output-limit', 'idle-key', 'idle-connection', 'idle-gpu']),
  title: z.string(),
  text: z.string(),
  subject: z.strictObject({ keyId: z.guid().nullable(), connectionId: z.guid().nullable(), provider: z.string().nullable(), model: z.string().nullable() }),
  evidence: z.strictObject({
    requests: z.number().int(),
    exampleRequestIds: z.array(z.string()),
    facts: z.record(z.string(), z.union([z.string(), z.number()])),
    /** An idle GPU's stretches in the week: minutes held (memory allocated) and idle, the process holding memory, what each cost (GBP). */
    idlePeriods: z
      .array(
        z.strictObject({
          start: z.iso.datetime(),
          end: z.iso.datetime(),
          heldMinutes: z.number().int(),
          idleMinutes: z.number().int(),
          peakMemoryMiB: z.number().nullable(),
          process: z.strictObject({ pid: z.number().int(), name: z.string() }).nullable(),
          wasted: z.string(),
        }),
      )
      .optional(),
  }),
  confidence: z.enum(['high', 'medium', 'low']),
  currency: z.literal('GBP'),
  /** The analysed days' cost as it was and as it would have been after the change. */
  currentCost: z.string(),
  counterfactualCost: z.string(),
  estimatedMonthlySaving: z.string(),
  /** Measured after the change is applied: the daily spend since against the window before, × 30; null until a day has passed. */
  realisedMonthlySaving: z.string().nullable(),
  change: z.discriminatedUnion('action', [
    z.strictObject({ action: z.literal('revoke-key'), keyId: z.guid() }),
    /** Merged into the key's settings in one click (`settings` as KeySettingsAnswer's fields); `description` says what changes. */
    z.strictObject({
      action: z.literal('key-setting'),
      keyId: z.guid(),
      settings: KeySettingsAnswer.pick({ modelOverrides: true, maxOutputTokens: true }),
      description: z.string(),
    }),
    z.strictObject({ action: z.literal('manual'), instruction: z.string() }),
  ]),
  /** What the insight was charged when first found (the plan's price per insight; nothing on a demo team). */
  price: z.string(),
  startDate: z.iso.date(),
  endDate: z.iso.date(),
  createdAt: Timestamp,
  refreshedAt: Timestamp,
  appliedAt: Timestamp.nullable(),
});

export const AdvisorInsights = z.strictObject({
  teamId: z.guid(),
  /** A demo team's: its tips are free, never charged. */
  demo: z.boolean(),
  currency: z.literal('GBP'),
  totalCharged: z.string(),
  insights: z.array(AdvisorInsight),
});

/** A generate run: what it found, how many were new, what those were charged. */
export const AdvisorRun = z.strictObject({
  teamId: z.guid(),
  /** A demo team's: its tips are free, never charged. */
  demo: z.boolean(),
  startDate: z.iso.date(),
  endDate: z.iso.date(),
  currency: z.literal('GBP'),
  found: z.number().int(),
  created: z.number().int(),
  /** How many tips the team's wording model wrote (the rest kept the template); 0 with wording off. */
  written: z.number().int(),
  charged: z.string(),
  insights: z.array(AdvisorInsight),
});

/** A team's advisor wording setting: off by default; when on, a model rewords the tips, its calls recorded as the team's usage. */
export const AdvisorWordingSetting = z.strictObject({
  teamId: z.guid(),
  enabled: z.boolean(),
  /** connection: one of the team's connections; operator: the operator's upstream for optimised keys. */
  source: z.enum(['connection', 'operator']),
  /** The connection (source connection); null once deleted. */
  connectionId: z.guid().nullable(),
  model: z.string(),
  /** Whether this deployment has an operator upstream to choose. */
  operatorAvailable: z.boolean(),
  updatedAt: Timestamp.nullable(),
});

/** One forecast day: the point forecast and its 80 % and 95 % intervals. */
const ForecastDay = z.strictObject({
  date: z.string(),
  cost: z.number(),
  lower80: z.number(),
  upper80: z.number(),
  lower95: z.number(),
  upper95: z.number(),
});

/** POST /usage/cost/forecast: the caller's daily costs forecast, with the method that made it. */
export const CostForecast = z.strictObject({
  /** e.g. `mstl-ets(7) log`, or `seasonal-naive(7) fallback: 9 points` for a series too short to fit. */
  method: z.string(),
  fallback: z.boolean(),
  /** The seasonal periods detected in the history (days), e.g. [7]. */
  seasonality: z.array(z.number().int()),
  forecast: z.array(ForecastDay),
});

const MicrosOrNull = z.string().nullable();

/** GET /usage/cost/forecast: the stored forecast of a team's or group's month (GBP micros as strings). */
export const StoredForecast = z.strictObject({
  teamId: z.guid(),
  groupId: z.guid().nullable(),
  /** yyyy-mm in the team's calendar. */
  period: z.string(),
  timeZone: z.string(),
  /** Null until the worker's first forecast for this scope and month (or when it never spent). */
  forecast: z
    .strictObject({
      madeAt: z.string(),
      method: z.string(),
      fallback: z.boolean(),
      /** The period's complete days so far. */
      actualMicros: z.string(),
      /** Month-end projection: actual + forecast, with its bounds. */
      projectedMicros: z.string(),
      lower80Micros: z.string(),
      upper80Micros: z.string(),
      lower95Micros: z.string(),
      upper95Micros: z.string(),
      days: z.array(
        z.strictObject({
          date: z.string(),
          actualMicros: MicrosOrNull,
          forecastMicros: MicrosOrNull,
          lower80Micros: MicrosOrNull,
          upper80Micros: MicrosOrNull,
          lower95Micros: MicrosOrNull,
          upper95Micros: MicrosOrNull,
        }),
      ),
    })
    .nullable(),
  /** The tightest monthly budget on this scope, if any. */
  budget: z.strictObject({ id: z.guid(), amountMicros: z.string(), mode: z.enum(['hard', 'soft', 'downgrade']) }).nullable(),
  /** The rolling-origin backtest over the last 8 weeks (weekly origins, 7 days ahead). */
  backtest: z
    .strictObject({
      madeAt: z.string(),
      weeks: z.number().int(),
      days: z.number().int(),
      mase: z.number().nullable(),
      coverage80: z.number(),
      coverage95: z.number(),
      /** Σ|error| / Σ actual: "within ±x %". */
      wape: z.number().nullable(),
    })
    .nullable(),
});

// Prompt capture

/** A team's prompt capture: what is set, what applies, and its groups' opt-ins. */
export const PromptCaptureSettings = z.strictObject({
  teamId: z.guid(),
  enabled: z.boolean(),
  /** Days set by the team; null: the deployment's default. */
  retentionDays: z.number().int().nullable(),
  /** Days a new capture is kept: the team's or the default, at most the plan's maximum. */
  effectiveRetentionDays: z.number().int(),
  defaultRetentionDays: z.number().int(),
  maxRetentionDays: z.number().int(),
  redactionPatterns: z.array(z.string()),
  /** Groups that set theirs (a group not listed does not capture). */
  groups: z.array(z.strictObject({ groupId: z.guid(), enabled: z.boolean() })),
});

const CapturedText = { text: z.string(), bytes: z.number().int(), truncated: z.boolean() };

/** One request's capture, redacted; `captured: false` when nothing is kept (capture off, or expired). */
export const PromptCaptureView = z.discriminatedUnion('captured', [
  z.strictObject({ requestId: z.string(), captured: z.literal(false) }),
  z.strictObject({
    requestId: z.string(),
    captured: z.literal(true),
    capturedAt: Timestamp,
    expiresAt: Timestamp,
    /** How many secrets, e-mail addresses, card numbers and team patterns were replaced. */
    redactions: z.number().int(),
    request: z.strictObject(CapturedText),
    response: z.strictObject({ ...CapturedText, streamed: z.boolean() }),
  }),
]);

// Single sign-on

const SsoMapping = z.strictObject({ idpGroup: z.string(), teamRole: z.enum(['ADMIN', 'MEMBER']), groupId: z.guid().nullable(), groupRole: z.enum(['ADMIN', 'MAINTAINER', 'OBSERVER']).nullable() });

/** A team's identity provider as admins see it: never its client secret. */
export const SsoSettings = z.strictObject({
  provider: z
    .strictObject({
      teamId: z.guid(),
      issuer: z.string(),
      clientId: z.string(),
      clientSecretSet: z.literal(true),
      domains: z.array(z.string()),
      /** Each domain's ownership proof: the TXT record its owner publishes, and when it was found (null: not verified). */
      domainVerification: z.array(z.strictObject({ domain: z.string(), record: z.strictObject({ type: z.literal('TXT'), name: z.string(), value: z.string() }), verifiedAt: Timestamp.nullable() })),
      enforced: z.boolean(),
      groupsClaim: z.string(),
      defaultTeamRole: z.enum(['ADMIN', 'MEMBER']).nullable(),
      mappings: z.array(SsoMapping),
      /** What to register with the IdP as the client's redirect URI. */
      redirectUri: z.string(),
      updatedAt: Timestamp,
    })
    .nullable(),
});

/** The identities a member's account is linked to at the team's identity provider (one per issuer). */
export const SsoIdentities = z.strictObject({
  userId: z.guid(),
  identities: z.array(z.strictObject({ issuer: z.string(), subject: z.string(), linkedAt: Timestamp })),
});

/** Where the browser goes to sign in at the identity provider. */
export const SsoStart = z.strictObject({ url: z.string() });

// Compliance readiness

/** The access review (Enterprise): one entry per membership, the team's first; `lastSignedInAt` null: never signed in since it was tracked. */
export const AccessReview = z.strictObject({
  teamId: z.guid(),
  generatedAt: Timestamp,
  entries: z.array(
    z.strictObject({
      userId: z.guid(),
      email: z.string(),
      name: z.string(),
      scope: z.enum(['team', 'group']),
      groupId: z.guid().nullable(),
      groupName: z.string().nullable(),
      role: z.string(),
      joinedAt: Timestamp,
      lastSignedInAt: Timestamp.nullable(),
    }),
  ),
});

/** Each retention setting of a team: what it set (null: the default), what applies, the default and the bounds. */
const RetentionDays = z.strictObject({ days: z.number().int().nullable(), effectiveDays: z.number().int(), defaultDays: z.number().int(), minDays: z.number().int(), maxDays: z.number().int() });

export const TeamRetention = z.strictObject({
  teamId: z.guid(),
  /** Raw usage events (the request log, exports by request); rollups are kept whatever this says. */
  usageEvents: RetentionDays,
  /** Captured prompts and answers (prompt capture's own setting: its maximum is the plan's). */
  promptCaptures: RetentionDays,
  /** Raw GPU samples; their classified minutes are kept. */
  gpuSamples: z.strictObject({ hours: z.number().int().nullable(), effectiveHours: z.number().int(), defaultHours: z.number().int(), minHours: z.number().int(), maxHours: z.number().int() }),
  /** The audit log (the audit service's retention, also at /api/audit/retention/{teamId}): oldest entries pruned, the chain anchored. */
  auditLog: RetentionDays,
});
