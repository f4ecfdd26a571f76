/**
 * The keys of a synthetic group, for its details view: listed by name, prefix, kind,
 * created and last used; issued (the plaintext shown once, with a copy button and a
 * warning), opened for settings and budgets, revoked after a confirmation. Group admins
 * and maintainers manage keys; observers only read (spec §6). Budgets are managed by
 * team admins (the API's rule).
 *
 * @example <GroupKeys groupId={group.id} role={group.role} />
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { revokeKeyMutation } from '../../api/keys/mutations.ts';
import { groupKeysQuery } from '../../api/keys/queries.ts';
import type { CreatedKey, ListedKey } from '../../api/keys/types.ts';
import { myTeamsQuery } from '../../api/team/queries.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { CopyField } from '../ui/CopyField.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { IssueKeyForm } from './IssueKeyForm.tsx';
import { KeyDetails } from './KeyDetails.tsx';
import { KIND_LABELS } from './key-form.ts';
import './keys.css';

export const KEY_SHOWN_ONCE_WARNING = 'Copy it now: it will not be shown again.';

const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
const when = (iso: string | null) => (iso ? dateTime.format(new Date(iso)) : 'Never');

/** Group roles that may issue, change and revoke keys (core's 'group.keys.manage'). */
const KEY_MANAGERS = ['ADMIN', 'MAINTAINER'];

export function GroupKeys({ groupId, role }: { groupId: string; role: string | null }) {
  const queryClient = useQueryClient();
  const group = useQuery(groupKeysQuery(groupId));
  const teams = useQuery(myTeamsQuery());
  const revoke = useMutation(revokeKeyMutation(queryClient));
  const [issuing, setIssuing] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [openKeyId, setOpenKeyId] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ListedKey | null>(null);

  const canManage = role !== null && KEY_MANAGERS.includes(role);
  const teamId = group.data?.teamId;
  const canManageBudgets = teams.data?.find((team) => team.id === teamId)?.role === 'ADMIN';
  const keys = group.data?.syntheticGroupProviderKeys ?? [];

  return (
    <section className="keys-panel" aria-labelledby={`keys-${groupId}`}>
      <header className="keys-panel__header">
        <div>
          <h2 id={`keys-${groupId}`} className="keys-panel__title">
            API keys
          </h2>
          <p className="keys-panel__description">Applications call the gateway with these keys; every request is metered to this group.</p>
        </div>
        {canManage && !issuing && teamId && (
          <button type="button" className="button button--primary button--small" onClick={() => setIssuing(true)}>
            Issue key
          </button>
        )}
      </header>

      {created && (
        <section className="key-once" aria-label={`New key ${created.providerKey.name}`}>
          <p className="key-once__warning" role="alert">
            <strong>{created.providerKey.name}</strong> is ready. {KEY_SHOWN_ONCE_WARNING}
          </p>
          <CopyField label="Your new key" value={created.key} />
          <button type="button" className="button button--ghost button--small" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </section>
      )}

      {issuing && teamId && (
        <IssueKeyForm
          groupId={groupId}
          teamId={teamId}
          onCancel={() => setIssuing(false)}
          onIssued={(key) => {
            setIssuing(false);
            setCreated(key);
          }}
        />
      )}

      {group.isPending ? (
        <LoadingState label="Loading keys…" />
      ) : group.isError ? (
        <ErrorState error={group.error} onRetry={() => group.refetch()} retrying={group.isFetching} />
      ) : keys.length === 0 ? (
        <p className="keys-panel__empty">{canManage ? 'No keys yet. Issue one to call the gateway for this group.' : 'No keys yet.'}</p>
      ) : (
        <table className="key-table">
          <caption className="visually-hidden">Keys of this group</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Kind</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <Fragment key={key.id}>
                <tr>
                  <th scope="row" data-label="Name">
                    {key.name}
                  </th>
                  <td data-label="Prefix">
                    <code>{key.prefix}…</code>
                  </td>
                  <td data-label="Kind">{KIND_LABELS[key.kind]}</td>
                  <td data-label="Created">{when(key.createdAt)}</td>
                  <td data-label="Last used">{when(key.lastUsedAt)}</td>
                  <td className="key-table__actions">
                    <button
                      type="button"
                      className="button button--ghost button--small"
                      aria-expanded={openKeyId === key.id}
                      aria-label={`${openKeyId === key.id ? 'Close' : 'Open'} settings and budget of ${key.name}`}
                      onClick={() => setOpenKeyId(openKeyId === key.id ? null : key.id)}
                    >
                      {openKeyId === key.id ? 'Close' : canManage ? 'Settings' : 'Details'}
                    </button>
                    {canManage && (
                      <button type="button" className="button button--danger button--small" aria-label={`Revoke ${key.name}`} onClick={() => setRevoking(key)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
                {openKeyId === key.id && (
                  <tr className="key-table__details">
                    <td colSpan={6}>
                      <KeyDetails apiKey={key} teamId={group.data.teamId} canManage={canManage} canManageBudgets={canManageBudgets} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}

      {revoking && (
        <ConfirmDialog
          title={`Revoke ${revoking.name}?`}
          confirmLabel="Revoke key"
          destructive
          busy={revoke.isPending}
          error={revoke.error?.message}
          onConfirm={() =>
            revoke.mutate(revoking.id, {
              onSuccess: () => {
                if (openKeyId === revoking.id) setOpenKeyId(null);
                setRevoking(null);
                revoke.reset();
              },
            })
          }
          onCancel={() => {
            setRevoking(null);
            revoke.reset();
          }}
        >
          Requests made with <code>{revoking.prefix}…</code> are refused at once (401). This cannot be undone.
        </ConfirmDialog>
      )}
    </section>
  );
}
