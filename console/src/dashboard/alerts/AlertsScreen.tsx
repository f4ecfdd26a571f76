/**
 * /dashboard/alerts: where a team's budget alerts go and what was sent. Channels are
 * listed with a test button; team admins add and delete them (e-mail on every plan; Slack,
 * Microsoft Teams and SMS on Enterprise). Below, every alert, newest first, with each
 * channel's delivery: its status and each attempt. The team shown is the URL's `team`,
 * else the user's first. Thresholds are set on each budget (alert at 50, 80, 100 %).
 * A team admin also chooses their own spend digest: a weekly or monthly e-mail of the
 * team's spend, with when the next one goes.
 */
import { type DigestFrequency, decide } from '@spendgate/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { addAlertChannelMutation, deleteAlertChannelMutation, previewSpendDigestMutation, setSpendDigestMutation, testAlertChannelMutation } from '../../api/alerts/mutations.ts';
import { alertChannelsQuery, alertHistoryQuery, spendDigestQuery } from '../../api/alerts/queries.ts';
import type { AlertChannel, AlertChannelKind, AlertDelivery, AlertEvent, SpendDigest } from '../../api/alerts/types.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { SelectInput, TextInput } from '../ui/Field.tsx';
import { ScreenFrame } from '../ui/ScreenFrame.tsx';
import { TeamStates, useTeamFromSearch } from '../ui/TeamFromSearch.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { CHANNEL_KIND_LABELS, type ChannelFields, channelInput, NEW_CHANNEL_FIELDS } from './channel-form.ts';
import './alerts.css';

const alertTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

const STATUS_LABELS: Record<AlertDelivery['status'], string> = { pending: 'Sending', retrying: 'Retrying', sent: 'Sent', logged: 'Logged (no SMTP)', failed: 'Failed' };

function ChannelForm({ teamId, onDone }: { teamId: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const add = useMutation(addAlertChannelMutation(queryClient));
  const [fields, setFields] = useState<ChannelFields>(NEW_CHANNEL_FIELDS);
  const set = (field: keyof ChannelFields) => (event: { target: { value: string } }) => setFields({ ...fields, [field]: event.target.value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate(channelInput(teamId, fields), { onSuccess: onDone });
  };
  return (
    <form className="alert-channel-form" onSubmit={submit} aria-label="Add an alert channel">
      <div className="alert-channel-form__row">
        <SelectInput label="Kind" id="channel-kind" value={fields.kind} onChange={set('kind')} hint="Slack, Microsoft Teams and SMS are on the Enterprise plan.">
          {(Object.keys(CHANNEL_KIND_LABELS) as AlertChannelKind[]).map((kind) => (
            <option key={kind} value={kind}>
              {CHANNEL_KIND_LABELS[kind]}
            </option>
          ))}
        </SelectInput>
        <TextInput label="Name" id="channel-name" required maxLength={80} value={fields.name} onChange={set('name')} placeholder="Finance" />
      </div>
      {fields.kind === 'email' && (
        <TextInput label="Addresses" id="channel-addresses" required value={fields.addresses} onChange={set('addresses')} hint="Up to 10, separated by commas." placeholder="finance@example.com" />
      )}
      {(fields.kind === 'slack' || fields.kind === 'teams') && (
        <TextInput
          label="Webhook URL"
          id="channel-webhook"
          type="url"
          required
          value={fields.webhookUrl}
          onChange={set('webhookUrl')}
          hint={fields.kind === 'slack' ? 'A Slack incoming webhook (Apps › Incoming Webhooks). Stored encrypted.' : 'A Teams Workflows webhook ("Send webhook alerts to a channel"). Stored encrypted.'}
        />
      )}
      {fields.kind === 'sms' && (
        <>
          <div className="alert-channel-form__row">
            <TextInput label="Twilio account SID" id="channel-sid" required value={fields.accountSid} onChange={set('accountSid')} placeholder="AC…" />
            <TextInput label="Twilio auth token" id="channel-token" type="password" autoComplete="off" required value={fields.authToken} onChange={set('authToken')} hint="Stored encrypted, never shown again." />
          </div>
          <div className="alert-channel-form__row">
            <TextInput label="From" id="channel-from" required value={fields.from} onChange={set('from')} hint="Your Twilio number, e.g. +15005550006." />
            <TextInput label="To" id="channel-to" required value={fields.to} onChange={set('to')} hint="E.164, e.g. +447700900123." />
          </div>
        </>
      )}
      {add.error && (
        <p className="alert alert--error" role="alert">
          {add.error.message}
        </p>
      )}
      <div className="alert-channel-form__actions">
        <button type="button" className="button button--ghost button--small" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="button button--primary button--small" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add channel'}
        </button>
      </div>
    </form>
  );
}

function ChannelRow({ channel, canManage }: { channel: AlertChannel; canManage: boolean }) {
  const queryClient = useQueryClient();
  const test = useMutation(testAlertChannelMutation(queryClient));
  const remove = useMutation(deleteAlertChannelMutation(queryClient));
  const [deleting, setDeleting] = useState(false);
  return (
    <li className="alert-channel">
      <div className="alert-channel__text">
        <p className="alert-channel__name">
          <strong>{channel.name}</strong> <span className="alert-channel__kind">{CHANNEL_KIND_LABELS[channel.kind]}</span>
        </p>
        <p className="alert-channel__target">{channel.target}</p>
        {test.isSuccess && <p className="alert-channel__note">Test alert queued: its delivery shows in the history below.</p>}
        {test.error && (
          <p className="alert alert--error" role="alert">
            {test.error.message}
          </p>
        )}
      </div>
      {canManage && (
        <div className="alert-channel__actions">
          <button type="button" className="button button--ghost button--small" onClick={() => test.mutate(channel)} disabled={test.isPending} aria-label={`Send test to ${channel.name}`}>
            {test.isPending ? 'Sending…' : 'Send test'}
          </button>
          <button type="button" className="button button--danger button--small" onClick={() => setDeleting(true)} aria-label={`Delete ${channel.name}`}>
            Delete
          </button>
        </div>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${channel.name}?`}
          confirmLabel="Delete channel"
          destructive
          busy={remove.isPending}
          error={remove.error?.message}
          onConfirm={() => remove.mutate(channel, { onSuccess: () => setDeleting(false) })}
          onCancel={() => setDeleting(false)}
        >
          Alerts will no longer go to it. What was sent stays in the history.
        </ConfirmDialog>
      )}
    </li>
  );
}

function ChannelsPanel({ teamId, canManage }: { teamId: string; canManage: boolean }) {
  const channels = useQuery(alertChannelsQuery(teamId));
  const [adding, setAdding] = useState(false);
  return (
    <section className="alerts-panel" aria-labelledby="alert-channels-title">
      <header className="alerts-panel__header">
        <h2 id="alert-channels-title">Channels</h2>
        {canManage && !adding && (
          <button type="button" className="button button--primary button--small" onClick={() => setAdding(true)}>
            Add channel
          </button>
        )}
      </header>
      {!canManage && <p className="alerts-panel__note">Read only: team admins add, test and delete channels.</p>}
      {adding && <ChannelForm teamId={teamId} onDone={() => setAdding(false)} />}
      {channels.isPending ? (
        <LoadingState label="Loading channels…" />
      ) : channels.isError ? (
        <ErrorState error={channels.error} onRetry={() => channels.refetch()} retrying={channels.isFetching} />
      ) : channels.data.length === 0 ? (
        <p className="alerts-panel__empty">No channel yet: alerts are recorded below but sent nowhere. Add an e-mail address to start.</p>
      ) : (
        <ul className="alert-channels">
          {channels.data.map((channel) => (
            <ChannelRow key={channel.id} channel={channel} canManage={canManage} />
          ))}
        </ul>
      )}
    </section>
  );
}

const DIGEST_CHOICES: { value: DigestFrequency | ''; label: string }[] = [
  { value: '', label: 'Off' },
  { value: 'weekly', label: 'Weekly, on Mondays' },
  { value: 'monthly', label: 'Monthly, on the 1st' },
];
const digestDay = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
/** A yyyy-mm-dd day as '23 Nov'. */
const showDay = (value: string) => digestDay.format(new Date(`${value}T00:00:00Z`));

/** When the next digest goes and what it covers, in the team's zone. */
function nextDigestText(digest: SpendDigest): string {
  if (!digest.next) return 'No digest is sent to you.';
  const due = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: digest.timeZone });
  return `Next: ${due.format(new Date(digest.next.dueAt))} (${digest.timeZone}), for ${showDay(digest.next.firstDay)} – ${showDay(digest.next.lastDay)}.`;
}

/** A team admin's own weekly or monthly e-mail of the team's spend. */
function SpendDigestPanel({ teamId }: { teamId: string }) {
  const digest = useQuery(spendDigestQuery(teamId));
  const save = useMutation(setSpendDigestMutation(useQueryClient()));
  const preview = useMutation(previewSpendDigestMutation());
  return (
    <section className="alerts-panel" aria-labelledby="spend-digest-title">
      <header className="alerts-panel__header">
        <h2 id="spend-digest-title">Spend digest</h2>
      </header>
      <p className="alerts-panel__note">
        An e-mail to you of the team's spend: the total against the period before, requests, unpriced requests, the top models and synthetic groups, each budget, and the month's forecast.
      </p>
      {digest.isPending ? (
        <LoadingState label="Loading your spend digest…" />
      ) : digest.isError ? (
        <ErrorState error={digest.error} onRetry={() => digest.refetch()} retrying={digest.isFetching} />
      ) : (
        <div className="spend-digest">
          <SelectInput
            label="Send me"
            id="spend-digest-frequency"
            value={digest.data.frequency ?? ''}
            disabled={save.isPending}
            onChange={(event) => save.mutate({ teamId, frequency: (event.target.value || null) as DigestFrequency | null })}
          >
            {DIGEST_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </SelectInput>
          <p className="alerts-panel__note" role="status">
            {save.isPending ? 'Saving…' : nextDigestText(digest.data)}
          </p>
          {save.isError && (
            <p className="alert alert--error" role="alert">
              {save.error.message}
            </p>
          )}
          <div>
            <button type="button" className="button button--ghost button--small" disabled={preview.isPending} onClick={() => preview.mutate(teamId)}>
              {preview.isPending ? 'Sending…' : 'Send me a sample now'}
            </button>
          </div>
          {preview.isSuccess && (
            <p className="alert alert--success" role="status">
              A sample for {showDay(preview.data.firstDay)} – {showDay(preview.data.lastDay)} is on its way to {preview.data.to}.
            </p>
          )}
          {preview.isError && (
            <p className="alert alert--error" role="alert">
              {preview.error.message}
            </p>
          )}
        </div>
      )}
    </section>
  );
}

function DeliveryRow({ delivery }: { delivery: AlertDelivery }) {
  const last = delivery.attempts.at(-1);
  return (
    <li className="alert-delivery">
      <span className="alert-delivery__channel">
        {delivery.channelName} <span className="alert-channel__kind">{CHANNEL_KIND_LABELS[delivery.channelKind]}</span>
      </span>
      <span className={`alert-delivery__status alert-delivery__status--${delivery.status}`}>{STATUS_LABELS[delivery.status]}</span>
      <span className="alert-delivery__attempts">
        {delivery.attempts.length === 1 ? '1 attempt' : `${delivery.attempts.length} attempts`}
        {last?.statusCode ? `, last answered ${last.statusCode}` : ''}
      </span>
      {delivery.lastError && <span className="alert-delivery__error">{delivery.lastError}</span>}
    </li>
  );
}

/** What raised an alert, as its tag in the history. */
const ALERT_KIND_LABELS: Record<AlertEvent['kind'], string> = { threshold: 'Budget threshold', breach: 'Projected breach', spike: 'Spend spike', 'gpu-idle': 'Idle GPU', test: 'Test' };

function AlertItem({ alert }: { alert: AlertEvent }) {
  return (
    <li className="alert-event">
      <div className="alert-event__top">
        <h3 className="alert-event__subject">
          <span className="alert-channel__kind">{ALERT_KIND_LABELS[alert.kind]}</span> {alert.subject}
        </h3>
        <time className="alert-event__time" dateTime={alert.createdAt}>
          {alertTime.format(new Date(alert.createdAt))}
        </time>
      </div>
      <p className="alert-event__message">{alert.message}</p>
      {alert.deliveries.length === 0 ? (
        <p className="alerts-panel__note">Sent nowhere: the team had no channel its plan allows.</p>
      ) : (
        <ul className="alert-deliveries" aria-label="Deliveries">
          {alert.deliveries.map((delivery) => (
            <DeliveryRow key={delivery.id} delivery={delivery} />
          ))}
        </ul>
      )}
    </li>
  );
}

function HistoryPanel({ teamId }: { teamId: string }) {
  const history = useQuery(alertHistoryQuery(teamId));
  return (
    <section className="alerts-panel" aria-labelledby="alert-history-title">
      <header className="alerts-panel__header">
        <h2 id="alert-history-title">History</h2>
      </header>
      {history.isPending ? (
        <LoadingState label="Loading alerts…" />
      ) : history.isError ? (
        <ErrorState error={history.error} onRetry={() => history.refetch()} retrying={history.isFetching} />
      ) : history.data.length === 0 ? (
        <p className="alerts-panel__empty">No alert yet. A budget alerts once per window at each of its thresholds (50, 80 and 100 % unless set otherwise), and once when the spend forecast projects it to run out; a day far above its forecast alerts as a spend spike.</p>
      ) : (
        <ol className="alert-events">
          {history.data.map((alert) => (
            <AlertItem key={alert.id} alert={alert} />
          ))}
        </ol>
      )}
    </section>
  );
}

export function AlertsScreen() {
  const { teams, team, teamRole, picker } = useTeamFromSearch();

  const content = () => {
    if (!team) return <TeamStates teams={teams} noTeam={{ icon: 'bell', text: 'Alerts belong to a team: create or join one in Settings › Team first.' }} />;
    const canManage = decide('budget.manage', { teamRole }) === 'allowed';
    return (
      <div className="alerts-layout">
        <ChannelsPanel teamId={team.id} canManage={canManage} />
        {decide('team.usage.view', { teamRole }) === 'allowed' && <SpendDigestPanel teamId={team.id} />}
        <HistoryPanel teamId={team.id} />
      </div>
    );
  };

  return (
    <ScreenFrame
      title="Alerts"
      description="Budget alerts and where they go: e-mail on every plan; Slack, Microsoft Teams and SMS on Enterprise."
      actions={picker}
    >
      {content()}
    </ScreenFrame>
  );
}
