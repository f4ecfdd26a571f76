/**
 * A group's invitations, for its admins: send several at once (one e-mail and role per
 * row; if any fails the first failure's message is reported and the failed rows stay,
 * spec §5), and the invitations sent, with their status; a pending one can be resent
 * (a new link) or revoked, an expired one resent.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { InvitationsError, resendInvitationMutation, revokeInvitationMutation, sendInvitationsMutation } from '../../api/groups/mutations.ts';
import { groupInvitationsQuery } from '../../api/groups/queries.ts';
import { GROUP_ROLE_LABELS, GROUP_ROLES, type GroupInvitation, type GroupRole, type InvitationStatus } from '../../api/groups/types.ts';
import { notify } from '../../shared/notifications.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { roleLabel } from './RoleBadge.tsx';
import { INVITATIONS_MAX, type InvitationRow, validateInvitations } from './validation.ts';

const STATUS_LABELS: Record<InvitationStatus, string> = { pending: 'Pending', accepted: 'Accepted', revoked: 'Revoked', expired: 'Expired' };
const day = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium' });
const emptyRow = (): InvitationRow => ({ email: '', role: 'OBSERVER' });

export function GroupInvitations({ groupId }: { groupId: string }) {
  return (
    <section className="group-panel" aria-labelledby="group-invitations-title">
      <div className="group-panel__head">
        <h2 className="group-panel__title" id="group-invitations-title">
          Invitations
        </h2>
      </div>
      <InviteForm groupId={groupId} />
      <InvitationList groupId={groupId} />
    </section>
  );
}

export function InviteForm({ groupId }: { groupId: string }) {
  const queryClient = useQueryClient();
  const send = useMutation(sendInvitationsMutation(queryClient));
  const [rows, setRows] = useState<InvitationRow[]>([emptyRow()]);
  const [problems, setProblems] = useState<ReturnType<typeof validateInvitations>>({ rows: [] });

  const setRow = (index: number, change: Partial<InvitationRow>) => setRows(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));

  function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateInvitations(rows);
    setProblems(found);
    if (found.form || found.rows.some((row) => Object.keys(row).length > 0)) return;
    const invitations = rows.filter((row) => row.email.trim()).map((row) => ({ email: row.email.trim(), role: row.role as GroupRole }));
    send.mutate(
      { groupId, invitations },
      {
        onSuccess: (sent) => {
          notify(sent.length === 1 ? `Invitation sent to ${sent[0]!.email}` : `${sent.length} invitations sent`, 'success');
          setRows([emptyRow()]);
        },
        onError: (error) => {
          // What was sent is done: only the rows that failed stay, to correct and send again.
          if (error instanceof InvitationsError) setRows(rows.filter((row) => error.failedEmails.includes(row.email.trim())));
        },
      },
    );
  }

  return (
    <form className="group-invite-form" onSubmit={submit} noValidate aria-label="Invite by e-mail">
      <p className="form-field__help">Invite people by e-mail, several at once. Each gets a link that works once, for 7 days.</p>
      {rows.map((row, index) => (
        // Rows have no identity of their own beyond their place in the form.
        // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place and removed by position.
        <div className="group-invite-form__row" key={index}>
          <div className="form-field">
            <label className="form-field__label" htmlFor={`invite-email-${index}`}>
              {`E-mail ${index + 1}`}
            </label>
            <input
              id={`invite-email-${index}`}
              type="email"
              autoComplete="off"
              value={row.email}
              maxLength={254}
              onChange={(event) => setRow(index, { email: event.target.value })}
              aria-invalid={problems.rows[index]?.email ? true : undefined}
              aria-describedby={problems.rows[index]?.email ? `invite-email-${index}-error` : undefined}
            />
            {problems.rows[index]?.email && (
              <p id={`invite-email-${index}-error`} className="form-field__error">
                {problems.rows[index].email}
              </p>
            )}
          </div>
          <div className="form-field">
            <label className="form-field__label" htmlFor={`invite-role-${index}`}>
              {`Role ${index + 1}`}
            </label>
            <select id={`invite-role-${index}`} value={row.role} onChange={(event) => setRow(index, { role: event.target.value })}>
              {GROUP_ROLES.map((role) => (
                <option key={role} value={role}>
                  {GROUP_ROLE_LABELS[role]}
                </option>
              ))}
            </select>
          </div>
          {rows.length > 1 && (
            <button type="button" className="button button--ghost button--small group-invite-form__remove" onClick={() => setRows(rows.filter((_, at) => at !== index))}>
              Remove <span className="visually-hidden">{`e-mail ${index + 1}`}</span>
            </button>
          )}
        </div>
      ))}
      {problems.form && (
        <p className="form-field__error" role="alert">
          {problems.form}
        </p>
      )}
      {send.error && (
        <p className="alert alert--error" role="alert">
          {send.error.message}
        </p>
      )}
      <div className="group-form__actions">
        <button type="button" className="button button--ghost" onClick={() => setRows([...rows, emptyRow()])} disabled={rows.length >= INVITATIONS_MAX}>
          Add another
        </button>
        <button type="submit" className="button button--primary" disabled={send.isPending} aria-busy={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send invitations'}
        </button>
      </div>
    </form>
  );
}

function InvitationList({ groupId }: { groupId: string }) {
  const queryClient = useQueryClient();
  const invitations = useQuery(groupInvitationsQuery(groupId));
  const resend = useMutation(resendInvitationMutation(queryClient));
  const revoke = useMutation(revokeInvitationMutation(queryClient));
  const [revoking, setRevoking] = useState<GroupInvitation | null>(null);

  if (invitations.isPending) return <LoadingState label="Loading invitations…" />;
  if (invitations.isError) return <ErrorState error={invitations.error} onRetry={() => invitations.refetch()} retrying={invitations.isFetching} />;
  if (invitations.data.length === 0) return <p className="group-panel__empty">No invitations sent yet.</p>;

  return (
    <>
      {resend.error && (
        <p className="alert alert--error" role="alert">
          {resend.error.message}
        </p>
      )}
      <div className="group-table-scroll">
        <table className="group-table" aria-label="Invitations sent">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col" className="group-table__optional">
                Expires
              </th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invitations.data.map((invitation) => (
              <tr key={invitation.id}>
                <td className="group-table__wrap">{invitation.email}</td>
                <td>{roleLabel(invitation.role)}</td>
                <td>
                  <span className={`group-status group-status--${invitation.status}`}>{STATUS_LABELS[invitation.status]}</span>
                </td>
                <td className="group-table__optional">{invitation.status === 'pending' || invitation.status === 'expired' ? day.format(new Date(invitation.expiresAt)) : '—'}</td>
                <td className="group-table__actions">
                  {(invitation.status === 'pending' || invitation.status === 'expired') && (
                    <button
                      type="button"
                      className="button button--ghost button--small"
                      disabled={resend.isPending && resend.variables === invitation.id}
                      onClick={() => resend.mutate(invitation.id, { onSuccess: () => notify(`Invitation resent to ${invitation.email}`, 'success') })}
                    >
                      Resend <span className="visually-hidden">{`to ${invitation.email}`}</span>
                    </button>
                  )}
                  {invitation.status === 'pending' && (
                    <button type="button" className="button button--ghost button--small" onClick={() => setRevoking(invitation)}>
                      Revoke <span className="visually-hidden">{`invitation of ${invitation.email}`}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {revoking && (
        <ConfirmDialog
          title={`Revoke the invitation of ${revoking.email}?`}
          confirmLabel="Revoke invitation"
          destructive
          busy={revoke.isPending}
          error={revoke.error?.message}
          onConfirm={() =>
            revoke.mutate(revoking.id, {
              onSuccess: () => {
                notify(`Invitation of ${revoking.email} revoked`, 'success');
                setRevoking(null);
              },
            })
          }
          onCancel={() => {
            setRevoking(null);
            revoke.reset();
          }}
        >
          Its link stops working. You can invite them again later.
        </ConfirmDialog>
      )}
    </>
  );
}
