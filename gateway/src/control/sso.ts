/**
 * Single sign-on through a team's own OIDC identity provider (Enterprise: every call about a
 * team on another plan answers 403 `plan_required`).
 *
 * Team admins configure the IdP: its issuer (checked by the outbound guard by every address
 * it reaches, and discovered before it is saved; http only for a host the operator
 * allow-lists), client id and secret (sealed with the team's data key, never answered), the
 * e-mail domains it claims (each one IdP's only: 409; no public mail provider), whether it is
 * enforced (password, Google sign-in, registration and reset are then refused for those
 * addresses) and how its groups map to team and group roles. Every change is audited.
 *
 * Domain ownership: a claimed domain gets a random token; its owner publishes TXT
 * `_spendgate-challenge.<domain>` = `spendgate-domain-verification=<token>` and presses Verify,
 * which looks it up through the operator's DNS servers (security/dns-txt.ts, bounded). Only a
 * verified domain routes SSO sign-ins and is enforced; enforcement cannot be turned on while a
 * domain is unverified (400 `enforced`), and a domain added to an enforced IdP is enforced once
 * verified. A verification stands while the IdP keeps claiming the domain (the record may then
 * be taken down); it is not re-checked periodically: dropping the domain from the IdP forgets
 * it, and claiming it again needs a new token and a new proof.
 *
 * Sign-in: `start` finds the IdP by the address's domain and answers the IdP's authorization
 * URL (code flow with PKCE S256, state and nonce). Only the state's hash is kept (10 minutes,
 * used once); the PKCE verifier and the nonce are HMACs of the state under the server's key,
 * so nothing secret is stored. The IdP sends the browser back to the console's /sso/callback,
 * which hands its query to `callback`: the code is traded (openid-client checks the ID token's
 * signature, issuer, audience, nonce and expiry), the person's verified address (it must be
 * in one of the IdP's verified domains) and groups are read (from the ID token, else the
 * userinfo endpoint), the account is found or made, their roles are set by the mapping, and
 * the answer is a session as a password sign-in's.
 *
 * Accounts are linked by the IdP's subject, as OIDC says to (the `sub` claim is the stable
 * identifier; an address can change or be reassigned). The account of a sign-in is, in order:
 * - the account linked to the ID token's (iss, sub): whatever address the IdP gives now (the
 *   account keeps its own; it must still be in a verified domain);
 * - else the account with that address, when it is the team's member and holds no subject at
 *   this issuer yet: linked now (an account outside the team is refused, not taken over);
 * - else a new account made just in time, linked.
 * An account holds one subject per issuer, so a different subject presenting the address of an
 * account already linked at this issuer is refused (403): the address was reassigned at the
 * IdP, or the IdP is lying, and either way that account's owner did not sign in.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import {
  AppError,
  ConflictError,
  emailDomain,
  ForbiddenError,
  NotFoundError,
  PlanRequiredError,
  PUBLIC_MAIL_DOMAINS,
  type SsoMapping,
  singleSignOnRefusal,
  ssoRoles,
  type TeamRole,
  UnauthorizedError,
  ValidationError,
} from '@spendgate/core';
import {
  countTeamMembers,
  deleteGroupMember,
  deleteSsoProvider,
  type Envelope,
  findGroupForUser,
  findSsoIdentityUser,
  findSsoProvider,
  findSsoProviderById,
  findSsoProviderForDomain,
  findSsoSubjectOfUser,
  findTeamDataKey,
  findTeamRole,
  findUserByEmail,
  findUserById,
  insertGroupMember,
  insertSsoSignIn,
  insertTeamDataKeyIfAbsent,
  linkSsoIdentity,
  listSsoDomains,
  listSsoIdentitiesOfUser,
  markEmailVerified,
  markSsoDomainVerified,
  type OutboundGuard,
  outboundUrlProblem,
  replaceSsoDomains,
  type SqlStore,
  type SsoProvidersTable,
  ssoDomainsOwnedElsewhere,
  ssoSecretScope,
  takeSsoSignIn,
  teamGroupIds,
  unlinkSsoIdentity,
  updateGroupMemberRole,
  updateTeamMemberRole,
  upsertSsoProvider,
  writeAudit,
} from '@spendgate/store';
import type { Selectable } from 'kysely';
import * as oidc from 'openid-client';
import { fetch as undiciFetch } from 'undici';
import type { TxtResolver } from '../security/dns-txt.ts';
import type { RateLimiter } from '../security/rate-limit.ts';
import type { Access } from './access.ts';
import type { AccountService } from './accounts.ts';
import { DATA_KEY_VERSION } from './connections.ts';
import type { PlanService } from './plans.ts';
import type { TeamService } from './teams.ts';

type Provider = Selectable<SsoProvidersTable>;

const STATE_LIFETIME_MS = 10 * 60_000;
/** How long a discovered IdP's metadata is reused before it is read again. */
const DISCOVERY_TTL_MS = 60 * 60_000;
const DISCOVERY_TIMEOUT_SECONDS = 10;
const SCOPE = 'openid email profile';

export interface SsoSettingsInput {
  teamId: string;
  issuer: string;
  clientId: string;
  /** Required when the team has no IdP yet; left out, the stored one stays. */
  clientSecret?: string | undefined;
  domains: string[];
  enforced: boolean;
  groupsClaim: string;
  defaultTeamRole: TeamRole | null;
  mappings: SsoMapping[];
}

/** Where a domain's owner publishes its token, and what they publish. */
export const domainChallenge = (domain: string, token: string) => ({ name: `_spendgate-challenge.${domain}`, value: `spendgate-domain-verification=${token}` });

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

export function createSsoService(deps: {
  sql: SqlStore;
  access: Access;
  plans: Pick<PlanService, 'teamTerms'>;
  envelope: Envelope;
  outbound: Pick<OutboundGuard, 'check' | 'dispatcher'>;
  accounts: Pick<AccountService, 'sessionFor' | 'createSsoAccount'>;
  teams: Pick<TeamService, 'join'>;
  limiter: Pick<RateLimiter, 'hit'>;
  /** Looks up a domain's TXT records (its ownership proof). */
  resolveTxt: TxtResolver;
  /** Where the console is reached (the redirect URI is its /sso/callback). */
  publicUrl: string;
  /** The server's secret the PKCE verifier and nonce are derived with. */
  stateKey: string;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());
  const redirectUri = `${deps.publicUrl}/sso/callback`;
  const discovered = new Map<string, { config: oidc.Configuration; at: number }>();

  /** The PKCE verifier or nonce of a sign-in: 43 base64url characters only the server can make from its state. */
  const derived = (purpose: 'pkce' | 'nonce', state: string) => createHmac('sha256', deps.stateKey).update(`sso-${purpose}:${state}`).digest('base64url');

  async function requirePlan(teamId: string): Promise<void> {
    const { terms } = await deps.plans.teamTerms(teamId);
    if (!terms.singleSignOn) throw new PlanRequiredError(singleSignOnRefusal(terms));
  }

  async function allowed(teamId: string, userId: string): Promise<void> {
    await deps.access.team(teamId, userId, 'sso.manage');
    await requirePlan(teamId);
  }

  /** The team's IdP, once the caller may see `memberId`'s links: a team admin, or the member themself (404 for a non-member). */
  async function memberAtIdp(userId: string, teamId: string, memberId: string) {
    await deps.access.team(teamId, userId, userId === memberId ? 'team.members.view' : 'sso.manage');
    await requirePlan(teamId);
    const provider = await findSsoProvider(db, teamId);
    if (!provider || !(await findTeamRole(db, teamId, memberId))) throw new NotFoundError(provider ? 'Team member' : 'Identity provider');
    return { provider };
  }

  /** Calls the IdP through the outbound guard's dispatcher: every address it connects to is checked. */
  const guardedFetch: oidc.CustomFetch = (url, options) =>
    undiciFetch(url, { ...(options as object), dispatcher: deps.outbound.dispatcher }) as unknown as Promise<Response>;

  async function discover(issuer: string, clientId: string, clientSecret: string): Promise<oidc.Configuration> {
    const insecure = new URL(issuer).protocol === 'http:';
    return oidc.discovery(new URL(issuer), clientId, undefined, oidc.ClientSecretBasic(clientSecret), {
      [oidc.customFetch]: guardedFetch,
      timeout: DISCOVERY_TIMEOUT_SECONDS,
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    });
  }

  async function secretOf(provider: Provider): Promise<string> {
    const dataKey = (await findTeamDataKey(db, provider.team_id))!;
    return deps.envelope.decryptSecret(dataKey.wrapped_key, ssoSecretScope(provider.team_id, provider.id, provider.secret_key_version), provider.secret_ciphertext);
  }

  /** The IdP's configuration, discovered at most hourly (again at once after a change). */
  async function configFor(provider: Provider): Promise<oidc.Configuration> {
    const key = `${provider.id}:${new Date(provider.updated_at).getTime()}`;
    const cached = discovered.get(key);
    if (cached && now().getTime() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    let config: oidc.Configuration;
    try {
      config = await discover(provider.issuer, provider.client_id, await secretOf(provider));
    } catch (error) {
      throw new AppError(502, 'idp_unavailable', `Your identity provider could not be reached: ${(error as Error).message}`);
    }
    for (const stale of discovered.keys()) if (stale.startsWith(`${provider.id}:`)) discovered.delete(stale);
    discovered.set(key, { config, at: now().getTime() });
    return config;
  }

  async function view(provider: Provider) {
    const domains = await listSsoDomains(db, provider.id);
    return {
      teamId: provider.team_id,
      issuer: provider.issuer,
      clientId: provider.client_id,
      clientSecretSet: true as const,
      domains: domains.map((row) => row.domain),
      domainVerification: domains.map((row) => ({ domain: row.domain, record: { type: 'TXT' as const, ...domainChallenge(row.domain, row.verification_token) }, verifiedAt: row.verified_at })),
      enforced: provider.enforced,
      groupsClaim: provider.groups_claim,
      defaultTeamRole: provider.default_team_role,
      mappings: provider.role_mappings,
      redirectUri,
      updatedAt: provider.updated_at,
    };
  }

  /** The issuer once the guard allows every address it reaches; plain http only for a host the operator allow-lists. */
  async function checkedIssuer(issuer: string): Promise<string> {
    const problem = await deps.outbound.check(issuer);
    if (problem) throw new ValidationError('issuer', `issuer ${problem}`);
    if (new URL(issuer).protocol === 'http:' && outboundUrlProblem(issuer, []) === undefined) throw new ValidationError('issuer', 'issuer must use https');
    return issuer;
  }

  async function checkedDomains(domains: readonly string[]): Promise<string[]> {
    const unique = [...new Set(domains.map((domain) => domain.toLowerCase()))].sort();
    const shared = unique.find((domain) => PUBLIC_MAIL_DOMAINS.has(domain));
    if (shared) throw new ValidationError('domains', `domains: ${shared} is a public mail provider; an identity provider can own only its organisation's domains`);
    return unique;
  }

  /** Sets the member's team role and the roles of the groups the mapping names, as their IdP groups say. */
  async function applyRoles(teamId: string, userId: string, roles: ReturnType<typeof ssoRoles> & { teamRole: TeamRole }) {
    await db.transaction().execute(async (trx) => {
      const current = await findTeamRole(trx, teamId, userId);
      if (!current) await deps.teams.join(trx, teamId, userId, roles.teamRole, userId);
      else if (current !== roles.teamRole) {
        // The team's last admin stays one: a mapping never leaves a team without an admin.
        const lastAdmin = current === 'ADMIN' && (await countTeamMembers(trx, teamId, 'ADMIN')) <= 1;
        if (!lastAdmin) {
          await updateTeamMemberRole(trx, teamId, userId, roles.teamRole);
          await writeAudit(trx, { teamId, actorUserId: userId, action: 'member.role_changed', targetType: 'user', targetId: userId, details: { from: current, to: roles.teamRole, source: 'sso' } });
        }
      }
      for (const [groupId, role] of roles.groupRoles) {
        const group = await findGroupForUser(trx, groupId, userId);
        if (!group || group.team_id !== teamId || group.groupRole === role) continue;
        const target = { teamId, actorUserId: userId, targetType: 'user', targetId: userId };
        if (role === null) {
          await deleteGroupMember(trx, groupId, userId);
          await writeAudit(trx, { ...target, action: 'group.member_removed', details: { groupId, source: 'sso' } });
        } else if (group.groupRole === null) {
          await insertGroupMember(trx, { groupId, userId, role });
          await writeAudit(trx, { ...target, action: 'group.member_added', details: { groupId, role, source: 'sso' } });
        } else {
          await updateGroupMemberRole(trx, groupId, userId, role);
          await writeAudit(trx, { ...target, action: 'group.member_role_changed', details: { groupId, role, source: 'sso' } });
        }
      }
    });
  }

  /** The person's address, whether it is verified, name and groups: as the ID token says, else as the userinfo endpoint does. */
  async function personOf(config: oidc.Configuration, provider: Provider, claims: oidc.IDToken, accessToken: string): Promise<{ email: unknown; emailVerified: unknown; name: unknown; groups: unknown }> {
    const read = (from: Record<string, unknown>) => ({ email: from.email, emailVerified: from.email_verified, name: from.name, groups: from[provider.groups_claim] });
    const fromToken = read(claims);
    if (typeof fromToken.email === 'string' && fromToken.groups !== undefined) return fromToken;
    const info = read(await oidc.fetchUserInfo(config, accessToken, claims.sub));
    return { email: fromToken.email ?? info.email, emailVerified: fromToken.emailVerified ?? info.emailVerified, name: fromToken.name ?? info.name, groups: fromToken.groups ?? info.groups };
  }

  const linkedElsewhere = (email: string) => `${email} is linked to another identity at your identity provider: ask a team admin`;

  /**
   * The account an IdP identity signs in to (see the header): the linked one, else the team
   * member with the address, else a new one made and linked in one transaction. A first
   * sign-in from two tabs at once finds, in the other's moment, the account linked to this
   * very subject, or the other's new account by its link.
   */
  async function accountOf(identity: { issuer: string; subject: string }, teamId: string, email: string, givenName: unknown) {
    const linkedId = await findSsoIdentityUser(db, identity.issuer, identity.subject);
    if (linkedId) return (await findUserById(db, linkedId))!;
    const existing = await findUserByEmail(db, email);
    if (existing) {
      const subject = await findSsoSubjectOfUser(db, identity.issuer, existing.id);
      if (subject === identity.subject) return existing;
      if (subject !== undefined) throw new ForbiddenError(linkedElsewhere(email));
      if (!(await findTeamRole(db, teamId, existing.id))) {
        throw new ForbiddenError(`${email} already has a Spendgate account outside this team: ask a team admin to invite it, then sign in with SSO`);
      }
      const member = existing.email_verified_at ? existing : (await markEmailVerified(db, existing.id, now()))!;
      if (!(await linkSsoIdentity(db, { ...identity, userId: member.id }))) throw new ForbiddenError(linkedElsewhere(email));
      return member;
    }
    const name = typeof givenName === 'string' && givenName.trim() ? givenName.trim().slice(0, 200) : email.slice(0, email.indexOf('@'));
    try {
      return await deps.accounts.createSsoAccount({ email, name, identity });
    } catch (error) {
      // Made a moment ago: by this subject's other sign-in (linked with it), else refused as made elsewhere.
      const madeId = error instanceof ConflictError ? await findSsoIdentityUser(db, identity.issuer, identity.subject) : undefined;
      if (madeId) return (await findUserById(db, madeId))!;
      throw error;
    }
  }

  return {
    redirectUri,

    async settings(userId: string, teamId: string) {
      await allowed(teamId, userId);
      const provider = await findSsoProvider(db, teamId);
      return { provider: provider ? await view(provider) : null };
    },

    async save(userId: string, input: SsoSettingsInput) {
      await allowed(input.teamId, userId);
      const existing = await findSsoProvider(db, input.teamId);
      if (!existing && input.clientSecret === undefined) throw new ValidationError('clientSecret', 'clientSecret is required to set up an identity provider');
      const issuer = await checkedIssuer(input.issuer);
      const domains = await checkedDomains(input.domains);
      const groupIds = [...new Set(input.mappings.flatMap((mapping) => (mapping.groupId ? [mapping.groupId] : [])))];
      const known = await teamGroupIds(db, input.teamId, groupIds);
      const unknown = input.mappings.findIndex((mapping) => mapping.groupId !== null && !known.has(mapping.groupId));
      if (unknown >= 0) throw new ValidationError(`mappings.${unknown}.groupId`, `mappings.${unknown}.groupId is not a group of this team`);
      if (input.enforced && !existing?.enforced) {
        const verified = new Set(existing ? (await listSsoDomains(db, existing.id)).flatMap((row) => (row.verified_at ? [row.domain] : [])) : []);
        const unverified = domains.filter((domain) => !verified.has(domain));
        if (unverified.length > 0) {
          throw new ValidationError('enforced', `enforced: ${unverified.join(', ')} ${unverified.length === 1 ? 'is' : 'are'} not verified yet; publish each domain's TXT record and verify it before enforcing single sign-on`);
        }
      }
      const clientSecret = input.clientSecret ?? (await secretOf(existing!));
      try {
        await discover(issuer, input.clientId, clientSecret);
      } catch (error) {
        throw new ValidationError('issuer', `issuer could not be discovered (${issuer}/.well-known/openid-configuration): ${(error as Error).message}`);
      }
      const id = existing?.id ?? randomUUID();
      const dataKey =
        (await findTeamDataKey(db, input.teamId)) ??
        (await insertTeamDataKeyIfAbsent(db, { teamId: input.teamId, keyVersion: DATA_KEY_VERSION, wrappedKey: deps.envelope.newDataKey(input.teamId, DATA_KEY_VERSION).wrapped }));
      const sealed = input.clientSecret === undefined ? undefined : deps.envelope.encryptSecret(dataKey.wrapped_key, ssoSecretScope(input.teamId, id, dataKey.key_version), input.clientSecret);
      const saved = await db
        .transaction()
        .execute(async (trx) => {
          const claimed = await ssoDomainsOwnedElsewhere(trx, id, domains);
          const existingDomains = existing ? (await listSsoDomains(trx, existing.id)).map((row) => row.domain) : [];
          if (claimed.length > 0) throw new ConflictError(`${claimed.join(', ')} already ${claimed.length === 1 ? 'belongs' : 'belong'} to another team's identity provider`);
          const provider = await upsertSsoProvider(trx, {
            id,
            team_id: input.teamId,
            issuer,
            client_id: input.clientId,
            secret_ciphertext: sealed ?? existing!.secret_ciphertext,
            secret_key_version: sealed ? dataKey.key_version : existing!.secret_key_version,
            enforced: input.enforced,
            groups_claim: input.groupsClaim,
            default_team_role: input.defaultTeamRole,
            role_mappings: JSON.stringify(input.mappings),
            updated_by: userId,
          });
          await replaceSsoDomains(trx, id, domains, () => randomBytes(16).toString('hex'));
          const before = existing && {
            issuer: existing.issuer,
            clientId: existing.client_id,
            domains: existingDomains,
            enforced: existing.enforced,
            groupsClaim: existing.groups_claim,
            defaultTeamRole: existing.default_team_role,
            mappings: existing.role_mappings,
          };
          await writeAudit(trx, {
            teamId: input.teamId,
            actorUserId: userId,
            action: existing ? 'sso.updated' : 'sso.configured',
            targetType: 'sso_provider',
            targetId: id,
            ...(before && { before }),
            after: { issuer, clientId: input.clientId, domains, enforced: input.enforced, groupsClaim: input.groupsClaim, defaultTeamRole: input.defaultTeamRole, mappings: input.mappings },
            details: { clientSecret: input.clientSecret === undefined ? 'unchanged' : '[redacted]' },
          });
          return provider;
        })
        .catch((error: unknown) => {
          if (isUniqueViolation(error)) throw new ConflictError('One of these domains already belongs to another team\'s identity provider');
          throw error;
        });
      return { provider: await view(saved) };
    },

    async remove(userId: string, teamId: string) {
      await allowed(teamId, userId);
      await db.transaction().execute(async (trx) => {
        const provider = await findSsoProvider(trx, teamId);
        if (!provider) throw new NotFoundError('Identity provider');
        const domains = (await listSsoDomains(trx, provider.id)).map((row) => row.domain);
        if (!(await deleteSsoProvider(trx, teamId))) throw new NotFoundError('Identity provider');
        await writeAudit(trx, { teamId, actorUserId: userId, action: 'sso.removed', targetType: 'sso_provider', targetId: provider.id, before: { issuer: provider.issuer, clientId: provider.client_id, domains, enforced: provider.enforced } });
      });
    },

    /** Looks the domain's TXT record up; found, the domain is verified (400 naming `domain`, saying what DNS answered, when not). */
    async verifyDomain(userId: string, teamId: string, domain: string) {
      await allowed(teamId, userId);
      const provider = await findSsoProvider(db, teamId);
      if (!provider) throw new NotFoundError('Identity provider');
      const claimed = (await listSsoDomains(db, provider.id)).find((row) => row.domain === domain);
      if (!claimed) throw new ValidationError('domain', `domain: ${domain} is not one of this identity provider's domains`);
      if (claimed.verified_at) return { provider: await view(provider) };
      const { name, value } = domainChallenge(domain, claimed.verification_token);
      const found = await deps.resolveTxt(name);
      if (found.outcome === 'found' && found.values.includes(value)) {
        await db.transaction().execute(async (trx) => {
          const verifiedAt = now();
          await markSsoDomainVerified(trx, provider.id, domain, verifiedAt);
          await writeAudit(trx, {
            teamId,
            actorUserId: userId,
            action: 'sso.domain_verified',
            targetType: 'sso_provider',
            targetId: provider.id,
            before: { domain, verifiedAt: null },
            after: { domain, verifiedAt: verifiedAt.toISOString() },
            details: { record: name },
          });
        });
        return { provider: await view(provider) };
      }
      const problem = {
        found: `the TXT records at ${name} do not include ${value}`,
        'no-records': `${name} has no TXT record; publish ${value} there, then verify again`,
        nxdomain: `${name} does not exist (NXDOMAIN); publish the TXT record ${value} there, then verify again`,
        failed: `the DNS look-up of ${name} failed (${found.outcome === 'failed' ? found.reason : ''}); try again later`,
      }[found.outcome];
      throw new ValidationError('domain', `domain: ${domain} is not verified: ${problem}`);
    },

    /**
     * The identities a member's account is linked to at the team's IdP, for a team admin or the
     * member themself; 404 for anyone who is not the team's member (or no IdP). A link at
     * another team's IdP is never shown.
     */
    async identities(userId: string, teamId: string, memberId: string) {
      const { provider } = await memberAtIdp(userId, teamId, memberId);
      const rows = await listSsoIdentitiesOfUser(db, provider.issuer, memberId);
      return { userId: memberId, identities: rows.map((row) => ({ issuer: row.issuer, subject: row.subject, linkedAt: row.created_at })) };
    },

    /**
     * Unlinks a member's account from its subject at the team's IdP (audited). The person's
     * next SSO sign-in links again by the usual rules: their address, when the account is
     * still the team's member and its domain verified.
     */
    async unlinkIdentity(userId: string, teamId: string, memberId: string) {
      const { provider } = await memberAtIdp(userId, teamId, memberId);
      await db.transaction().execute(async (trx) => {
        const removed = await unlinkSsoIdentity(trx, provider.issuer, memberId);
        if (!removed) throw new NotFoundError('Linked identity');
        await writeAudit(trx, {
          teamId,
          actorUserId: userId,
          action: 'sso.identity_unlinked',
          targetType: 'user',
          targetId: memberId,
          before: { issuer: removed.issuer, subject: removed.subject, linkedAt: new Date(removed.created_at).toISOString() },
        });
      });
    },

    /** Step 1: the IdP's authorization URL for this address. */
    async start(email: string, ip: string) {
      await deps.limiter.hit('login', { account: email, ip });
      const domain = emailDomain(email);
      const provider = await findSsoProviderForDomain(db, domain);
      if (!provider) throw new ValidationError('email', `email: ${domain} does not sign in with single sign-on; use your password`);
      if (!provider.domain_verified_at) throw new ValidationError('email', `email: ${domain} is not verified for single sign-on yet; ask your administrator, or use your password`);
      await requirePlan(provider.team_id);
      const config = await configFor(provider);
      const state = oidc.randomState();
      await insertSsoSignIn(db, { stateHash: sha256(state), providerId: provider.id, expiresAt: new Date(now().getTime() + STATE_LIFETIME_MS) });
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: SCOPE,
        state,
        nonce: derived('nonce', state),
        code_challenge: await oidc.calculatePKCECodeChallenge(derived('pkce', state)),
        code_challenge_method: 'S256',
        login_hint: email,
      });
      return { url: url.href };
    },

    /** Step 2: the IdP's redirect back (its query as the console received it); answers a session. */
    async callback(query: Record<string, string>) {
      const state = query.state;
      if (!state) throw new ValidationError('state', 'state is missing: start signing in with SSO again');
      const signIn = await takeSsoSignIn(db, sha256(state), now());
      if (!signIn) throw new UnauthorizedError('This sign-in has expired or was already used: start signing in with SSO again');
      if (query.error) throw new UnauthorizedError(`Your identity provider refused the sign-in: ${query.error_description ?? query.error}`);
      const provider = await findSsoProviderById(db, signIn.provider_id);
      if (!provider) throw new UnauthorizedError('This team no longer signs in with SSO');
      await requirePlan(provider.team_id);
      const config = await configFor(provider);
      const current = new URL(redirectUri);
      for (const [name, value] of Object.entries(query)) current.searchParams.set(name, value);
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: derived('pkce', state), expectedState: state, expectedNonce: derived('nonce', state), idTokenExpected: true });
      } catch (error) {
        // openid-client's error says which check failed; its cause (oauth4webapi's) names the claim, e.g. 'unexpected ID Token "nonce" claim value'.
        const cause = (error as Error).cause;
        throw new UnauthorizedError(`Your identity provider's answer was refused: ${(error as Error).message}${cause instanceof Error ? `: ${cause.message}` : ''}`);
      }
      const claims = tokens.claims()!;
      const person = await personOf(config, provider, claims, tokens.access_token);
      if (typeof person.email !== 'string' || person.emailVerified === false) throw new UnauthorizedError('Your identity provider did not give a verified e-mail address');
      const email = person.email.toLowerCase();
      const owned = (await listSsoDomains(db, provider.id)).find((row) => row.domain === emailDomain(email));
      if (!owned?.verified_at) throw new ForbiddenError(`${email} is not in a domain this team's identity provider owns`);
      const groups = Array.isArray(person.groups) ? person.groups.filter((group): group is string => typeof group === 'string') : typeof person.groups === 'string' ? [person.groups] : [];
      const roles = ssoRoles({ mappings: provider.role_mappings, defaultTeamRole: provider.default_team_role }, groups);
      if (roles.teamRole === null) throw new ForbiddenError('Your identity provider account is in none of the groups this team lets in: ask your administrator');
      const user = await accountOf({ issuer: claims.iss, subject: claims.sub }, provider.team_id, email, person.name);
      await applyRoles(provider.team_id, user.id, { ...roles, teamRole: roles.teamRole });
      return deps.accounts.sessionFor(user.id);
    },
  };
}

export type SsoService = ReturnType<typeof createSsoService>;
