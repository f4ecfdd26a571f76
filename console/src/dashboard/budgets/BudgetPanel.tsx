/**
 * The budgets on one key, group or team: each with a bar of what is spent and reserved
 * against its cap, what remains in the team's currency, when it resets and its alert
 * thresholds; added, edited and deleted by those who may (team admins).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { createBudgetMutation, deleteBudgetMutation, updateBudgetMutation } from '../../api/budgets/mutations.ts';
import { budgetsQuery } from '../../api/budgets/queries.ts';
import type { Budget, BudgetTarget } from '../../api/budgets/types.ts';
import { myTeamsQuery } from '../../api/team/queries.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { ProgressBar } from '../ui/ProgressBar.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { BudgetForm } from './BudgetForm.tsx';
import { budgetFieldsFrom, budgetFigures, formatResetTime, MODE_LABELS, NEW_BUDGET_FIELDS, WINDOW_LABELS } from './budget-form.ts';
import './budgets.css';

const WINDOW_NOUNS = { day: 'daily', week: 'weekly', month: 'monthly', total: 'total' } as const;

export function BudgetPanel({ target, title, canManage }: { target: BudgetTarget; title: string; canManage: boolean }) {
  const queryClient = useQueryClient();
  const budgets = useQuery(budgetsQuery(target));
  const create = useMutation(createBudgetMutation(queryClient));
  const [adding, setAdding] = useState(false);
  const headingId = `budgets-${target.scope}-${target.scopeId}`;

  return (
    <section className="budgets" aria-labelledby={headingId}>
      <header className="budgets__header">
        <h3 id={headingId} className="budgets__title">
          {title}
        </h3>
        {canManage && !adding && (
          <button type="button" className="button button--ghost button--small" onClick={() => setAdding(true)}>
            Add budget
          </button>
        )}
      </header>
      {!canManage && <p className="budgets__note">Read only: team admins set and change budgets.</p>}
      {adding && (
        <BudgetForm
          title="New budget"
          initial={NEW_BUDGET_FIELDS}
          submitLabel="Create budget"
          busy={create.isPending}
          error={create.error}
          onCancel={() => {
            setAdding(false);
            create.reset();
          }}
          onSubmit={(values) =>
            create.mutate(
              { ...target, ...values },
              {
                onSuccess: () => {
                  setAdding(false);
                  create.reset();
                },
              },
            )
          }
        />
      )}
      {budgets.isPending ? (
        <LoadingState label="Loading budgets…" />
      ) : budgets.isError ? (
        <ErrorState error={budgets.error} onRetry={() => budgets.refetch()} retrying={budgets.isFetching} />
      ) : budgets.data.length === 0 ? (
        !adding && <p className="budgets__empty">No budget: spend here is not capped.</p>
      ) : (
        <ul className="budgets__list">
          {budgets.data.map((budget) => (
            <li key={budget.id}>
              <BudgetCard budget={budget} canManage={canManage} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function BudgetCard({ budget, canManage }: { budget: Budget; canManage: boolean }) {
  const queryClient = useQueryClient();
  const update = useMutation(updateBudgetMutation(queryClient));
  const remove = useMutation(deleteBudgetMutation(queryClient));
  const teamTimeZone = useQuery(myTeamsQuery()).data?.find((team) => team.id === budget.teamId)?.timeZone;
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const figures = budgetFigures(budget);
  const name = `${figures.format(figures.amount)} ${WINDOW_NOUNS[budget.window]} budget`;

  if (editing) {
    return (
      <BudgetForm
        title={`Edit the ${name}`}
        initial={budgetFieldsFrom(budget)}
        submitLabel="Save budget"
        busy={update.isPending}
        error={update.error}
        onCancel={() => {
          setEditing(false);
          update.reset();
        }}
        onSubmit={(changes) => update.mutate({ budget, changes }, { onSuccess: () => setEditing(false) })}
      />
    );
  }

  return (
    <article className="budget-card" aria-label={name}>
      <div className="budget-card__top">
        <p className="budget-card__name">
          <strong>{figures.format(figures.amount)}</strong> {WINDOW_LABELS[budget.window].toLowerCase()}
          <span className={`budget-card__mode budget-card__mode--${budget.mode}`}>{MODE_LABELS[budget.mode]}</span>
        </p>
        {canManage && (
          <div className="budget-card__actions">
            <button type="button" className="button button--ghost button--small" aria-label={`Edit the ${name}`} onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" className="button button--ghost button--small" aria-label={`Delete the ${name}`} onClick={() => setDeleting(true)}>
              Delete
            </button>
          </div>
        )}
      </div>
      <ProgressBar label={`Spend against the ${name}`} spentMicros={figures.spent} reservedMicros={figures.reserved} capMicros={figures.amount} currency={figures.currency} />
      <dl className="budget-card__facts">
        <div>
          <dt>Remaining</dt>
          <dd>{figures.format(figures.remaining)}</dd>
        </div>
        <div>
          <dt>Resets</dt>
          <dd>{formatResetTime(budget.resetsAt, teamTimeZone)}</dd>
        </div>
        <div>
          <dt>Alerts at</dt>
          <dd>{budget.alertAt.length > 0 ? budget.alertAt.map((percent) => `${percent}%`).join(', ') : 'None'}</dd>
        </div>
        <div>
          <dt>Unpriced models</dt>
          <dd>{budget.unpricedModels === 'refused' ? 'Refused' : 'Admitted (fees counted)'}</dd>
        </div>
      </dl>
      {deleting && (
        <ConfirmDialog
          title={`Delete the ${name}?`}
          confirmLabel="Delete budget"
          destructive
          busy={remove.isPending}
          error={remove.error?.message}
          onConfirm={() => remove.mutate(budget, { onSuccess: () => setDeleting(false) })}
          onCancel={() => {
            setDeleting(false);
            remove.reset();
          }}
        >
          Spend here will no longer be capped by it.
        </ConfirmDialog>
      )}
    </article>
  );
}
