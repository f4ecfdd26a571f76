/**
 * Single sign-on on the Team screen (team admins, Enterprise). The team's plan is read first
 * (its seats say it): on another plan the panel says SSO is an Enterprise feature, with a way
 * to contact sales, and asks nothing of /api/sso. On Enterprise: the identity provider's
 * issuer, client id and secret (write-only: once stored, left empty it stays), the redirect
 * URI to register with it, the e-mail domains it claims (each "Not verified" until the TXT
 * record shown beside it is published and Verify finds it), whether password sign-in is
 * refused for them, the ID-token claim listing a person's groups, the role of someone in no mapped
 * group, and each IdP group's team role and, optionally, its role in one of the team's groups.
 * Below the form, a member's linked identities at the IdP, each with Unlink (confirmed).
 */
import { planTerms, singleSignOnRefusal } from '@spendgate/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { groupsQuery } from '../../api/groups/queries.ts';
import { removeSsoMutation, saveSsoMutation, unlinkSsoIdentityMutation, verifySsoDomainMutation } from '../../api/sso/mutations.ts';
import { ssoIdentitiesQuery, ssoSettingsQuery } from '../../api/sso/queries.ts';
import type { SsoDomainVerification, SsoMapping, SsoProvider } from '../../api/sso/types.ts';
import { teamMembersQuery, teamSeatsQuery } from '../../api/team/queries.ts';
import { salesMailto } from '../../shared/config.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { CopyField } from '../ui/CopyField.tsx';
import { SelectInput, TextInput } from '../ui/Field.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import '../../styles/sso.css';
import { Badge } from '../ui/Badge.tsx';

const TITLE_ID = 'sso-title';
const domainsOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((domain) => domain.trim())
    .filter(Boolean);
const newMapping = (): SsoMapping => ({ idpGroup: '', teamRole: 'MEMBER', groupId: null, groupRole: null });

function MappingRow({ mapping, index, groups, onChange, onRemove }: { mapping: SsoMapping; index: number; groups: { id: string; name: string }[]; onChange: (mapping: SsoMapping) => void; onRemove: () => void }) {
  const id = (field: string) => `sso-mapping-${index}-${field}`;
  return (
    <li className="sso-mapping">
      <TextInput label="IdP group" id={id('group')} value={mapping.idpGroup} onChange={(event) => onChange({ ...mapping, idpGroup: event.target.value })} />
      <SelectInput label="Team role" id={id('team-role')} value={mapping.teamRole} onChange={(event) => onChange({ ...mapping, teamRole: event.target.value as SsoMapping['teamRole'] })}>
        <option value="MEMBER">Member</option>
        <option value="ADMIN">Admin</option>
      </SelectInput>
      <SelectInput
        label="Synthetic group"
        id={id('group-id')}
        value={mapping.groupId ?? ''}
        onChange={(event) => {
          const groupId = event.target.value || null;
          onChange({ ...mapping, groupId, groupRole: groupId ? (mapping.groupRole ?? 'OBSERVER') : null });
        }}
      >
        <option value="">None</option>
        {groups.map((group) => (
          <option key={group.id} value={group.id}>
            {group.name}
          </option>
        ))}
      </SelectInput>
      <SelectInput
        label="Group role"
        id={id('group-role')}
        value={mapping.groupRole ?? ''}
        disabled={mapping.groupId === null}
        onChange={(event) => onChange({ ...mapping, groupRole: (event.target.value || null) as SsoMapping['groupRole'] })}
      >
        {mapping.groupId === null && <option value="">—</option>}
        <option value="OBSERVER">Observer</option>
        <option value="MAINTAINER">Maintainer</option>
        <option value="ADMIN">Admin</option>
      </SelectInput>
      <button type="button" className="button button--ghost sso-mapping__remove" onClick={onRemove} aria-label={`Remove the mapping of ${mapping.idpGroup || `row ${index + 1}`}`}>
        Remove
      </button>
    </li>
  );
}

/** Each claimed domain's state; an unverified one shows the TXT record to publish and a Verify button. */
function DomainVerification({ teamId, domains }: { teamId: string; domains: SsoDomainVerification[] }) {
  const queryClient = useQueryClient();
  const verify = useMutation(verifySsoDomainMutation(queryClient));
  return (
    <section className="sso-domains" aria-labelledby="sso-domains-title">
      <h3 id="sso-domains-title" className="sso-subtitle">
        Domain verification
      </h3>
      <p className="settings-panel__text">A domain signs people in with single sign-on, and can be enforced, once you prove you own it with a DNS TXT record.</p>
      <ul className="sso-domain-list">
        {domains.map(({ domain, record, verifiedAt }) => (
          <li key={domain} className="sso-domain">
            <div className="sso-domain__head">
              <strong>{domain}</strong>
              {verifiedAt ? <Badge tone="good">Verified</Badge> : <Badge tone="warning">Not verified</Badge>}
            </div>
            {!verifiedAt && (
              <>
                <p className="settings-panel__text">Publish this TXT record at your DNS provider, then verify:</p>
                <div className="sso-record">
                  <CopyField label={`TXT name for ${domain}`} value={record.name} />
                  <CopyField label={`TXT value for ${domain}`} value={record.value} />
                </div>
                {verify.isError && verify.variables?.domain === domain && <FormError error={verify.error} />}
                <button type="button" className="button button--ghost" disabled={verify.isPending} aria-label={`Verify ${domain}`} onClick={() => verify.mutate({ teamId, domain })}>
                  {verify.isPending && verify.variables?.domain === domain ? 'Looking up the record…' : 'Verify'}
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function SsoForm({ teamId, provider }: { teamId: string; provider: SsoProvider | null }) {
  const queryClient = useQueryClient();
  const save = useMutation(saveSsoMutation(queryClient));
  const remove = useMutation(removeSsoMutation(queryClient));
  const groups = useQuery(groupsQuery({ teamId }));
  const [issuer, setIssuer] = useState(provider?.issuer ?? '');
  const [clientId, setClientId] = useState(provider?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [domains, setDomains] = useState(provider?.domains.join(', ') ?? '');
  const [enforced, setEnforced] = useState(provider?.enforced ?? false);
  const [groupsClaim, setGroupsClaim] = useState(provider?.groupsClaim ?? 'groups');
  const [defaultTeamRole, setDefaultTeamRole] = useState<SsoProvider['defaultTeamRole']>(provider?.defaultTeamRole ?? null);
  const [mappings, setMappings] = useState<SsoMapping[]>(provider?.mappings ?? []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { teamId, issuer: issuer.trim(), clientId: clientId.trim(), ...(clientSecret ? { clientSecret } : {}), domains: domainsOf(domains), enforced, groupsClaim: groupsClaim.trim(), defaultTeamRole, mappings },
      { onSuccess: () => setClientSecret('') },
    );
  };
  const redirectUri = provider?.redirectUri ?? `${window.location.origin}/sso/callback`;

  return (
    <form className="settings-panel" onSubmit={submit} aria-labelledby={TITLE_ID} noValidate>
      <h2 id={TITLE_ID} className="settings-panel__title">
        Single sign-on
      </h2>
      <p className="settings-panel__text">
        Let your people sign in through your organisation's OpenID Connect identity provider (Okta, Microsoft Entra ID, Google Workspace, Keycloak…). Register Spendgate there as a
        web application with this redirect URI: <code className="sso-redirect">{redirectUri}</code>
      </p>
      <div className="sso-grid">
        <TextInput label="Issuer URL" id="sso-issuer" type="url" value={issuer} placeholder="https://login.example.com" onChange={(event) => setIssuer(event.target.value)} />
        <TextInput label="Client ID" id="sso-client-id" value={clientId} autoComplete="off" onChange={(event) => setClientId(event.target.value)} />
        <TextInput
          label="Client secret"
          id="sso-client-secret"
          type="password"
          autoComplete="new-password"
          value={clientSecret}
          onChange={(event) => setClientSecret(event.target.value)}
          hint={provider ? 'Stored encrypted. Leave empty to keep it.' : 'Stored encrypted, never shown again.'}
        />
        <TextInput label="E-mail domains" id="sso-domains" value={domains} placeholder="example.com, example.co.uk" onChange={(event) => setDomains(event.target.value)} hint="People with these addresses sign in through this provider." />
        <TextInput label="Groups claim" id="sso-groups-claim" value={groupsClaim} onChange={(event) => setGroupsClaim(event.target.value)} hint="The ID-token claim that lists a person's groups." />
        <SelectInput
          label="Someone in no mapped group"
          id="sso-default-role"
          value={defaultTeamRole ?? ''}
          onChange={(event) => setDefaultTeamRole((event.target.value || null) as SsoProvider['defaultTeamRole'])}
        >
          <option value="">Cannot sign in</option>
          <option value="MEMBER">Joins as a member</option>
          <option value="ADMIN">Joins as an admin</option>
        </SelectInput>
      </div>
      {provider && provider.domainVerification.length > 0 && <DomainVerification teamId={teamId} domains={provider.domainVerification} />}
      <label className="capture-check">
        <input type="checkbox" checked={enforced} onChange={(event) => setEnforced(event.target.checked)} />
        <span>Require single sign-on for these domains once verified (password and Google sign-in, sign-up and reset are refused)</span>
      </label>
      <h3 className="sso-subtitle">Role mapping</h3>
      <p className="settings-panel__text">Each sign-in sets a person's roles from their IdP groups: the strongest role any of their groups gives.</p>
      {groups.isError && <ErrorState error={groups.error} onRetry={() => groups.refetch()} retrying={groups.isRefetching} />}
      {mappings.length === 0 ? (
        <p className="settings-panel__text">No group mapped yet.</p>
      ) : (
        <ul className="sso-mappings">
          {mappings.map((mapping, index) => (
            <MappingRow
              // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity of their own; one is removed by its place.
              key={index}
              mapping={mapping}
              index={index}
              groups={groups.data ?? []}
              onChange={(changed) => setMappings(mappings.map((candidate, at) => (at === index ? changed : candidate)))}
              onRemove={() => setMappings(mappings.filter((_, at) => at !== index))}
            />
          ))}
        </ul>
      )}
      <button type="button" className="button button--ghost" onClick={() => setMappings([...mappings, newMapping()])}>
        Add a group mapping
      </button>
      <FormError error={save.error ?? remove.error} />
      {save.isSuccess && !save.isPending && (
        <p className="alert alert--success" role="status">
          Single sign-on saved.
        </p>
      )}
      <div className="sso-actions">
        <button type="submit" className="button button--primary" disabled={save.isPending}>
          {save.isPending ? 'Checking your provider…' : 'Save single sign-on'}
        </button>
        {provider && (
          <button type="button" className="button button--ghost" disabled={remove.isPending} onClick={() => remove.mutate(teamId)}>
            Remove single sign-on
          </button>
        )}
      </div>
    </form>
  );
}

const linkedDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });

/** A chosen member's identity at the IdP, and Unlink after a confirmation. */
function LinkedIdentities({ teamId }: { teamId: string }) {
  const queryClient = useQueryClient();
  const members = useQuery(teamMembersQuery(teamId));
  const [userId, setUserId] = useState('');
  const identities = useQuery({ ...ssoIdentitiesQuery(teamId, userId), enabled: userId !== '' });
  const unlink = useMutation(unlinkSsoIdentityMutation(queryClient));
  const [confirming, setConfirming] = useState<{ subject: string; issuer: string } | null>(null);
  const member = members.data?.find((candidate) => candidate.id === userId);
  return (
    <section className="settings-panel" aria-labelledby="sso-identities-title">
      <h3 id="sso-identities-title" className="sso-subtitle">
        Linked identities
      </h3>
      <p className="settings-panel__text">A member's account is linked to their identity at your identity provider at their first single sign-on. Unlinked, their next sign-in links it again if the account is still in the team and its address in a verified domain.</p>
      <SelectInput label="Member" id="sso-identities-member" value={userId} onChange={(event) => setUserId(event.target.value)}>
        <option value="">Choose a member</option>
        {(members.data ?? []).map((candidate) => (
          <option key={candidate.id} value={candidate.id}>
            {candidate.name ? `${candidate.name} (${candidate.email})` : candidate.email}
          </option>
        ))}
      </SelectInput>
      {identities.isError && <ErrorState error={identities.error} title="The linked identities could not be loaded" onRetry={() => identities.refetch()} retrying={identities.isFetching} />}
      {identities.data &&
        (identities.data.identities.length === 0 ? (
          <p className="settings-panel__text">{member?.email ?? 'This member'} is not linked to an identity at your identity provider.</p>
        ) : (
          <ul className="sso-identity-list">
            {identities.data.identities.map((identity) => (
              <li key={identity.subject} className="sso-identity">
                <span className="sso-identity__subject">{identity.subject}</span>
                <span className="settings-panel__text">linked {linkedDate.format(new Date(identity.linkedAt))}</span>
                <button type="button" className="button button--ghost button--small" aria-label={`Unlink ${identity.subject}`} onClick={() => setConfirming(identity)}>
                  Unlink
                </button>
              </li>
            ))}
          </ul>
        ))}
      {confirming && (
        <ConfirmDialog
          title="Unlink this identity?"
          confirmLabel={unlink.isPending ? 'Unlinking…' : 'Unlink identity'}
          destructive
          busy={unlink.isPending}
          error={unlink.error?.message}
          onConfirm={() => unlink.mutate({ teamId, userId }, { onSuccess: () => setConfirming(null) })}
          onCancel={() => setConfirming(null)}
        >
          {`${member?.email ?? 'This account'} will no longer be linked to ${confirming.subject} at ${confirming.issuer}.`}
        </ConfirmDialog>
      )}
    </section>
  );
}

function EnterpriseSso({ teamId }: { teamId: string }) {
  const settings = useQuery(ssoSettingsQuery(teamId));
  if (settings.isPending) return <LoadingState label="Loading single sign-on…" />;
  if (settings.isError) return <ErrorState error={settings.error} title="Single sign-on could not be loaded" onRetry={() => settings.refetch()} retrying={settings.isFetching} />;
  return (
    <>
      <SsoForm teamId={teamId} provider={settings.data.provider} />
      {settings.data.provider && <LinkedIdentities teamId={teamId} />}
    </>
  );
}

/** The team's plan first: the form only where the plan has single sign-on. */
export function SsoSettings({ teamId }: { teamId: string }) {
  const seats = useQuery(teamSeatsQuery(teamId));
  if (seats.isPending) return <LoadingState label="Loading your team's plan…" />;
  if (seats.isError) return <ErrorState error={seats.error} title="Your team's plan could not be loaded" onRetry={() => seats.refetch()} retrying={seats.isFetching} />;
  const terms = planTerms(seats.data.planSlug);
  if (!terms.singleSignOn) {
    return (
      <section className="settings-panel" aria-labelledby={TITLE_ID}>
        <h2 id={TITLE_ID} className="settings-panel__title">
          Single sign-on
        </h2>
        <p className="settings-panel__text">{singleSignOnRefusal(terms)}.</p>
        <a className="button button--ghost" href={salesMailto()}>
          Contact Sales
        </a>
      </section>
    );
  }
  return <EnterpriseSso teamId={teamId} />;
}
