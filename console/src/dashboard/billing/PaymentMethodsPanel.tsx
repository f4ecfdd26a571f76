/**
 * The account's cards: each with its expiry and whether it is the default, made the
 * default or removed (after a confirm dialog); a card added through a SetupIntent
 * (create-setup-intent, then save-payment-method), its card from the seam in
 * card-setup.ts.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { addPaymentMethodMutation, makeDefaultPaymentMethodMutation, removePaymentMethodMutation } from '../../api/subscription/mutations.ts';
import { paymentMethodsQuery } from '../../api/subscription/queries.ts';
import type { PaymentMethod } from '../../api/subscription/types.ts';
import { Badge } from '../ui/Badge.tsx';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { SelectInput } from '../ui/Field.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { confirmWithTestCard, TEST_CARDS } from './card-setup.ts';
import { FAILED_TO_LOAD } from './PlanPanel.tsx';

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express' };

export const cardName = (method: PaymentMethod) => `${BRANDS[method.brand] ?? method.brand} ending ${method.last4}`;

export function PaymentMethodsPanel() {
  const methods = useQuery(paymentMethodsQuery());
  const [adding, setAdding] = useState(false);
  return (
    <section className="settings-panel billing-panel" aria-labelledby="cards-title">
      <h2 id="cards-title" className="settings-panel__title">
        Payment methods
      </h2>
      {methods.isPending ? (
        <LoadingState label="Loading payment methods…" />
      ) : methods.isError ? (
        <ErrorState title={FAILED_TO_LOAD} error={methods.error} onRetry={() => methods.refetch()} retrying={methods.isRefetching} />
      ) : methods.data.length === 0 ? (
        <p className="settings-panel__text">No card saved yet. Add one to pay when your trial ends.</p>
      ) : (
        <ul className="billing-list" aria-label="Saved cards">
          {methods.data.map((method) => (
            <PaymentMethodRow key={method.id} method={method} />
          ))}
        </ul>
      )}
      {adding ? (
        <AddCardForm onDone={() => setAdding(false)} />
      ) : (
        <button type="button" className="button button--ghost" onClick={() => setAdding(true)}>
          Add a card
        </button>
      )}
    </section>
  );
}

function PaymentMethodRow({ method }: { method: PaymentMethod }) {
  const queryClient = useQueryClient();
  const makeDefault = useMutation(makeDefaultPaymentMethodMutation(queryClient));
  const remove = useMutation(removePaymentMethodMutation(queryClient));
  const [removing, setRemoving] = useState(false);
  const name = cardName(method);
  return (
    <li className="billing-list__item">
      <span>
        <strong>{name}</strong> <span className="billing-list__sub">expires {String(method.expMonth).padStart(2, '0')}/{method.expYear}</span>
        {method.isDefault && <> <Badge tone="good">Default</Badge></>}
      </span>
      {makeDefault.isError && (
        <span className="alert alert--error" role="alert">
          {makeDefault.error.message}
        </span>
      )}
      <span className="billing-list__actions">
        {!method.isDefault && (
          <button type="button" className="button button--ghost button--small" disabled={makeDefault.isPending} onClick={() => makeDefault.mutate(method.id)}>
            {makeDefault.isPending ? 'Saving…' : 'Make default'}
            <span className="visually-hidden"> ({name})</span>
          </button>
        )}
        <button type="button" className="button button--ghost button--small" onClick={() => setRemoving(true)}>
          Remove<span className="visually-hidden"> ({name})</span>
        </button>
      </span>
      {removing && (
        <ConfirmDialog
          title={`Remove ${name}?`}
          confirmLabel="Remove card"
          destructive
          busy={remove.isPending}
          error={remove.error?.message}
          onConfirm={() => remove.mutate(method.id)}
          onCancel={() => {
            setRemoving(false);
            remove.reset();
          }}
        >
          It will not be charged again.{method.isDefault ? ' Another saved card, if any, becomes the default.' : ''}
        </ConfirmDialog>
      )}
    </li>
  );
}

function AddCardForm({ onDone }: { onDone: () => void }) {
  const add = useMutation(addPaymentMethodMutation(useQueryClient()));
  const [card, setCard] = useState<string>(TEST_CARDS[0].id);
  return (
    <form
      className="billing-change"
      aria-label="Add a card"
      onSubmit={(event) => {
        event.preventDefault();
        add.mutate(confirmWithTestCard(card), { onSuccess: onDone });
      }}
    >
      <SelectInput label="Card" id="test-card" hint="Stripe test mode: choose one of its test cards." value={card} onChange={(event) => setCard(event.target.value)}>
        {TEST_CARDS.map((test) => (
          <option key={test.id} value={test.id}>
            {test.label}
          </option>
        ))}
      </SelectInput>
      {add.isError && (
        <p className="alert alert--error" role="alert">
          {add.error.message}
        </p>
      )}
      <span className="billing-list__actions">
        <button type="submit" className="button button--primary" disabled={add.isPending}>
          {add.isPending ? 'Saving card…' : 'Save card'}
        </button>
        <button type="button" className="button button--ghost" onClick={onDone} disabled={add.isPending}>
          Cancel
        </button>
      </span>
    </form>
  );
}
