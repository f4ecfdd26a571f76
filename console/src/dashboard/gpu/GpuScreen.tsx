/**
 * /dashboard/gpu: GPU infrastructure analytics and idle resource detection (Enterprise).
 * For the team in the URL's `team` (else the user's first) and a range of whole UTC hours:
 * fleet utilisation, the heat map of GPUs by hour, the idle list with the process holding
 * memory and its cost, £ wasted, power per model, and the settings (idle rules, prices,
 * ingest keys, DCGM exporters). The team's plan is read first (its seats say it): a team on
 * a plan without GPU analytics gets the plan-required message with a way to contact sales and
 * no GPU call is made (nor when the server refuses one for the plan, which it names).
 */
import { decide, gpuAnalyticsRefusal, planTerms, type TeamRole } from '@spendgate/core';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { gpuSettingsQuery, isPlanRequired } from '../../api/gpu/queries.ts';
import { teamSeatsQuery } from '../../api/team/queries.ts';
import { salesMailto } from '../../shared/config.ts';
import { SelectInput } from '../ui/Field.tsx';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { TeamStates, useTeamFromSearch } from '../ui/TeamFromSearch.tsx';
import { HeatmapPanel, PowerPanel, UtilizationPanel } from './GpuCharts.tsx';
import { GpuSettingsPanel } from './GpuSettingsPanel.tsx';
import { IdlePanel, WastePanel } from './IdleList.tsx';
import { RANGES, type RangeName, rangeOf } from './format.ts';
import './gpu.css';

function PlanRequired({ message }: { message: string }) {
  return (
    <EmptyState
      icon="server"
      title="GPU analytics is on the Enterprise plan"
      text={message}
      action={
        <a className="button button--primary" href={salesMailto()}>
          Contact Sales
        </a>
      }
    />
  );
}

function GpuAnalytics({ teamId, teamRole }: { teamId: string; teamRole: TeamRole | null }) {
  const settings = useQuery(gpuSettingsQuery(teamId));
  const [rangeName, setRangeName] = useState<RangeName>('day');
  // The range's end is fixed when it is chosen: the queries' keys stay the same while the screen is open.
  const hours = useMemo(() => rangeOf(rangeName, Date.now()), [rangeName]);

  if (settings.isPending) return <LoadingState label="Loading GPU settings…" />;
  if (settings.isError) {
    if (isPlanRequired(settings.error)) return <PlanRequired message={settings.error.message} />;
    return <ErrorState error={settings.error} title="GPU settings could not be loaded" onRetry={() => settings.refetch()} retrying={settings.isFetching} />;
  }
  const scope = { teamId, from: hours.from, to: hours.to };
  const chartHours = { hours: hours.hours, withDay: rangeName !== 'day' };
  return (
    <div className="gpu-layout">
      <div className="gpu-toolbar">
        <SelectInput label="Range" id="gpu-range" value={rangeName} onChange={(event) => setRangeName(event.target.value as RangeName)}>
          {(Object.keys(RANGES) as RangeName[]).map((name) => (
            <option key={name} value={name}>
              {RANGES[name].label}
            </option>
          ))}
        </SelectInput>
      </div>
      <UtilizationPanel scope={scope} range={chartHours} />
      <HeatmapPanel scope={scope} range={chartHours} />
      <IdlePanel scope={scope} />
      <WastePanel scope={scope} />
      <PowerPanel scope={scope} range={chartHours} />
      <GpuSettingsPanel settings={settings.data} canManage={decide('gpu.manage', { teamRole }) === 'allowed'} />
    </div>
  );
}

/** The team's plan first: GPU analytics only where it has them. */
function TeamGpus({ teamId, teamRole }: { teamId: string; teamRole: TeamRole | null }) {
  const seats = useQuery(teamSeatsQuery(teamId));
  if (seats.isPending) return <LoadingState label="Loading your team's plan…" />;
  if (seats.isError) return <ErrorState error={seats.error} title="Your team's plan could not be loaded" onRetry={() => seats.refetch()} retrying={seats.isFetching} />;
  const terms = planTerms(seats.data.planSlug);
  if (!terms.gpuAnalytics) return <PlanRequired message={gpuAnalyticsRefusal(terms)} />;
  return <GpuAnalytics teamId={teamId} teamRole={teamRole} />;
}

export function GpuScreen() {
  const { teams, team, teamRole, picker } = useTeamFromSearch();

  const content = () => {
    if (!team) return <TeamStates teams={teams} noTeam={{ icon: 'server', text: 'GPU analytics belong to a team: create or join one in Settings › Team first.' }} />;
    return <TeamGpus key={team.id} teamId={team.id} teamRole={teamRole} />;
  };

  return (
    <ScreenFrame
      title="GPU infrastructure"
      description="How busy your GPUs are, which sit idle holding memory, and what that idle time costs."
      actions={picker}
    >
      {content()}
    </ScreenFrame>
  );
}
