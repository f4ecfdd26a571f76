/**
 * The GPU screen's settings: the idle rules (below what utilisation, for how long), the
 * price table (£ an hour per GPU model; the models the fleet reports are offered), the
 * ingest keys agents push nvidia-smi batches with (a new key is shown once, with the
 * command that runs the agent) and the DCGM exporters scraped per cluster (each with its
 * last scrape's outcome). Team admins change them; members read them.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { addExporterMutation, deleteExporterMutation, issueIngestKeyMutation, revokeIngestKeyMutation, saveGpuPricesMutation, saveGpuRulesMutation } from '../../api/gpu/mutations.ts';
import type { GpuExporter, GpuIngestKey, GpuIngestKeyIssued, GpuSettings } from '../../api/gpu/types.ts';
import { CopyField } from '../ui/CopyField.tsx';
import { TextInput } from '../ui/Field.tsx';
import { timeText } from './format.ts';

function Problem({ error }: { error: Error | null }) {
  if (!error) return null;
  return (
    <p className="alert alert--error" role="alert">
      {error.message}
    </p>
  );
}

function IdleRules({ settings, canManage }: { settings: GpuSettings; canManage: boolean }) {
  const save = useMutation(saveGpuRulesMutation(useQueryClient()));
  const [threshold, setThreshold] = useState(String(settings.idleBelowPct));
  const [windowMinutes, setWindowMinutes] = useState(String(settings.idleAfterMinutes));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ teamId: settings.teamId, idleBelowPct: Number(threshold), idleAfterMinutes: Number(windowMinutes) });
  };
  return (
    <form className="gpu-settings__block" onSubmit={submit} aria-labelledby="gpu-rules-title">
      <h3 id="gpu-rules-title">Idle rules</h3>
      <p className="gpu-settings__text">A GPU is idle once its utilisation stays below the threshold for the whole window; it counts as idle from the window's start.</p>
      <div className="gpu-settings__row">
        <TextInput label="Threshold (%)" id="gpu-threshold" type="number" min={1} max={100} required disabled={!canManage} value={threshold} onChange={(event) => setThreshold(event.target.value)} />
        <TextInput label="Window (minutes)" id="gpu-window" type="number" min={1} max={1440} required disabled={!canManage} value={windowMinutes} onChange={(event) => setWindowMinutes(event.target.value)} />
      </div>
      <Problem error={save.error} />
      {canManage && (
        <button type="submit" className="button button--primary button--small" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save idle rules'}
        </button>
      )}
    </form>
  );
}

function Prices({ settings, canManage }: { settings: GpuSettings; canManage: boolean }) {
  const save = useMutation(saveGpuPricesMutation(useQueryClient()));
  const unpriced = settings.models.filter((model) => !settings.prices.some((price) => price.model === model));
  const [rows, setRows] = useState(() => [...settings.prices.map((price) => ({ ...price, perHour: price.perHour.replace(/0{1,4}$/, '') })), ...unpriced.map((model) => ({ model, perHour: '' }))]);
  const change = (index: number, field: 'model' | 'perHour', value: string) => setRows(rows.map((row, i) => (i === index ? { ...row, [field]: value } : row)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ teamId: settings.teamId, prices: rows.filter((row) => row.model.trim() !== '' && row.perHour.trim() !== '') });
  };
  return (
    <form className="gpu-settings__block" onSubmit={submit} aria-labelledby="gpu-prices-title">
      <h3 id="gpu-prices-title">Prices</h3>
      <p className="gpu-settings__text">What an hour of each GPU model costs you, in £. Idle time on a model without a price is shown as unpriced.</p>
      {rows.length === 0 && <p className="gpu-settings__text">No GPU has reported yet: add a model by its name as nvidia-smi gives it (e.g. NVIDIA H200).</p>}
      <ul className="gpu-settings__list">
        {rows.map((row, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a row being typed has no other identity.
          <li key={index} className="gpu-settings__row">
            <TextInput label="GPU model" id={`gpu-price-model-${index}`} disabled={!canManage} value={row.model} onChange={(event) => change(index, 'model', event.target.value)} />
            <TextInput label="£ an hour" id={`gpu-price-${index}`} inputMode="decimal" disabled={!canManage} value={row.perHour} onChange={(event) => change(index, 'perHour', event.target.value)} placeholder="3.50" />
            {canManage && (
              <button type="button" className="button button--ghost button--small" onClick={() => setRows(rows.filter((_, i) => i !== index))} aria-label={`Remove the price of ${row.model || 'this model'}`}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      <Problem error={save.error} />
      {save.isSuccess && !save.isPending && <p role="status">Prices saved.</p>}
      {canManage && (
        <div className="gpu-settings__actions">
          <button type="button" className="button button--ghost button--small" onClick={() => setRows([...rows, { model: '', perHour: '' }])}>
            Add a model
          </button>
          <button type="submit" className="button button--primary button--small" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save prices'}
          </button>
        </div>
      )}
    </form>
  );
}

/** The command that runs the agent with a new key (the README's agent section says the rest). */
const agentCommand = (key: string) =>
  `SPENDGATE_URL=${window.location.origin} SPENDGATE_GPU_KEY=${key} SPENDGATE_CLUSTER=training \\\n  tools/gpu-agent/spendgate-gpu-agent.sh`;

function IngestKeys({ settings, canManage }: { settings: GpuSettings; canManage: boolean }) {
  const queryClient = useQueryClient();
  const issue = useMutation(issueIngestKeyMutation(queryClient));
  const revoke = useMutation(revokeIngestKeyMutation(queryClient));
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<GpuIngestKeyIssued>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    issue.mutate(
      { teamId: settings.teamId, name },
      {
        onSuccess: (key) => {
          setIssued(key);
          setName('');
        },
      },
    );
  };
  const row = (key: GpuIngestKey) => (
    <li key={key.id} className="gpu-settings__item">
      <span>
        <strong>{key.name}</strong> <code>{key.prefix}…</code>
        <span className="gpu-settings__sub">{key.lastUsedAt ? `Last used ${timeText(key.lastUsedAt)}` : 'Never used'}</span>
      </span>
      {canManage && (
        <button type="button" className="button button--danger button--small" onClick={() => revoke.mutate({ teamId: settings.teamId, id: key.id })} aria-label={`Revoke ${key.name}`}>
          Revoke
        </button>
      )}
    </li>
  );
  return (
    <section className="gpu-settings__block" aria-labelledby="gpu-keys-title">
      <h3 id="gpu-keys-title">Ingest keys</h3>
      <p className="gpu-settings__text">Agents push nvidia-smi readings with a key (tools/gpu-agent/spendgate-gpu-agent.sh). A key is shown once.</p>
      {settings.ingestKeys.length === 0 ? <p className="gpu-settings__text">No key yet.</p> : <ul className="gpu-settings__list">{settings.ingestKeys.map(row)}</ul>}
      <Problem error={revoke.error} />
      {issued && (
        <div className="gpu-settings__issued">
          <CopyField label={`Ingest key ${issued.name} (shown once)`} value={issued.key} />
          <CopyField label="Run the agent on each GPU host" value={agentCommand(issued.key)} multiline />
        </div>
      )}
      {canManage && (
        <form className="gpu-settings__row" onSubmit={submit} aria-label="Issue an ingest key">
          <TextInput label="Key name" id="gpu-key-name" required maxLength={80} value={name} onChange={(event) => setName(event.target.value)} placeholder="training cluster agents" />
          <button type="submit" className="button button--primary button--small" disabled={issue.isPending}>
            {issue.isPending ? 'Issuing…' : 'Issue key'}
          </button>
        </form>
      )}
      <Problem error={issue.error} />
    </section>
  );
}

function Exporters({ settings, canManage }: { settings: GpuSettings; canManage: boolean }) {
  const queryClient = useQueryClient();
  const add = useMutation(addExporterMutation(queryClient));
  const remove = useMutation(deleteExporterMutation(queryClient));
  const [cluster, setCluster] = useState('');
  const [url, setUrl] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ teamId: settings.teamId, cluster, url }, { onSuccess: () => setUrl('') });
  };
  const row = (exporter: GpuExporter) => (
    <li key={exporter.id} className="gpu-settings__item">
      <span>
        <strong>{exporter.cluster}</strong> <code className="gpu-settings__url">{exporter.url}</code>
        <span className="gpu-settings__sub">
          {exporter.lastScrapedAt === null ? 'Not scraped yet' : exporter.lastError ? `Last scrape ${timeText(exporter.lastScrapedAt)} failed: ${exporter.lastError}` : `Last scraped ${timeText(exporter.lastScrapedAt)}`}
        </span>
      </span>
      {canManage && (
        <button type="button" className="button button--danger button--small" onClick={() => remove.mutate({ teamId: settings.teamId, id: exporter.id })} aria-label={`Delete the exporter ${exporter.url}`}>
          Delete
        </button>
      )}
    </li>
  );
  return (
    <section className="gpu-settings__block" aria-labelledby="gpu-exporters-title">
      <h3 id="gpu-exporters-title">DCGM exporters</h3>
      <p className="gpu-settings__text">Spendgate reads each exporter's /metrics every 30 seconds. Private and loopback addresses are refused.</p>
      {settings.exporters.length === 0 ? <p className="gpu-settings__text">No exporter yet.</p> : <ul className="gpu-settings__list">{settings.exporters.map(row)}</ul>}
      <Problem error={remove.error} />
      {canManage && (
        <form className="gpu-settings__row" onSubmit={submit} aria-label="Add a DCGM exporter">
          <TextInput label="Cluster" id="gpu-exporter-cluster" required maxLength={80} value={cluster} onChange={(event) => setCluster(event.target.value)} placeholder="inference" />
          <TextInput label="Exporter URL" id="gpu-exporter-url" type="url" required value={url} onChange={(event) => setUrl(event.target.value)} placeholder="https://dcgm.example.com:9400/metrics" />
          <button type="submit" className="button button--primary button--small" disabled={add.isPending}>
            {add.isPending ? 'Adding…' : 'Add exporter'}
          </button>
        </form>
      )}
      <Problem error={add.error} />
    </section>
  );
}

export function GpuSettingsPanel({ settings, canManage }: { settings: GpuSettings; canManage: boolean }) {
  return (
    <section className="overview-panel gpu-settings" aria-labelledby="gpu-settings-title">
      <div className="overview-panel__header">
        <h2 id="gpu-settings-title">Settings</h2>
        {!canManage && <p className="overview-panel__meta">Read only: team admins change these.</p>}
      </div>
      <div className="gpu-settings__grid">
        <IdleRules key={`${settings.idleBelowPct}/${settings.idleAfterMinutes}`} settings={settings} canManage={canManage} />
        <Prices key={JSON.stringify([settings.prices, settings.models])} settings={settings} canManage={canManage} />
        <IngestKeys settings={settings} canManage={canManage} />
        <Exporters settings={settings} canManage={canManage} />
      </div>
    </section>
  );
}
