/**
 * What a key of each kind costs on the team's plan (spec §9), in words for the issue
 * form: the optimised keys' uplift, small-request fee and allowance, the BYOM routing
 * fee. BYOK keys are billed by the provider. Amounts come from core's plan table.
 *
 * @example
 *   keyKindTerms('byom', planTerms('growth'), true) // 'Growth plan: £0.004 routing fee per request.'
 */
import { formatMoney, money, type PlanTerms } from '@spendgate/core';
import type { KeyKind } from '../../api/keys/types.ts';

const gbp = (micros: bigint) => formatMoney(money(micros, 'GBP'));

/** `paying`: the plan is paid for; a trial allows only what it includes. */
export function keyKindTerms(kind: KeyKind, terms: PlanTerms, paying: boolean): string | undefined {
  const plan = `${terms.name} plan`;
  if (kind === 'byom') return `${plan}: ${gbp(terms.byomRoutingFeeMicros)} routing fee per request.`;
  if (kind !== 'optimised') return undefined;
  const uplift = `base model cost + ${terms.upliftBasisPoints / 100}% per request, ${gbp(terms.belowMinimumFeeMicros)} for a request under ${terms.minimumTokensPerRequest} tokens`;
  const included =
    terms.optimisedKeysIncluded === null
      ? 'unlimited optimised keys'
      : !paying
        ? `${terms.optimisedKeysIncluded} optimised keys during the trial`
        : terms.extraOptimisedKeyMonthlyMicros === null
          ? `${terms.optimisedKeysIncluded} optimised keys`
          : `${terms.optimisedKeysIncluded} optimised keys, then ${gbp(terms.extraOptimisedKeyMonthlyMicros)} a key a month`;
  return `${plan}: ${uplift}; ${included}.`;
}
