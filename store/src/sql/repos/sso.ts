// Single sign-on: a team's identity provider, the e-mail domains it claims (each with its DNS
// verification token, owned once verified), sign-ins under way (each state taken once,
// atomically, at the callback) and the IdP identities linked to accounts.
import type { Insertable } from 'kysely';
import type { SsoProvidersTable } from '../schema.ts';
import type { Db } from './db.ts';

/** What sealing an IdP's client secret binds it to (the team's data key, as connection secrets are). */
export const ssoSecretScope = (teamId: string, providerId: string, version: number) => ({ teamId, connectionId: `sso-provider:${providerId}`, version });

export async function findSsoProvider(db: Db, teamId: string) {
  return db.selectFrom('sso_providers').selectAll().where('team_id', '=', teamId).executeTakeFirst();
}

export async function findSsoProviderById(db: Db, providerId: string) {
  return db.selectFrom('sso_providers').selectAll().where('id', '=', providerId).executeTakeFirst();
}

/** The IdP that claims an e-mail domain, if any, and when the domain was verified (null: not yet). */
export async function findSsoProviderForDomain(db: Db, domain: string) {
  return db
    .selectFrom('sso_domains')
    .innerJoin('sso_providers', 'sso_providers.id', 'sso_domains.provider_id')
    .selectAll('sso_providers')
    .select('sso_domains.verified_at as domain_verified_at')
    .where('sso_domains.domain', '=', domain.toLowerCase())
    .executeTakeFirst();
}

/** The IdP's domains by name, each with its verification token and when it was verified. */
export async function listSsoDomains(db: Db, providerId: string) {
  return db.selectFrom('sso_domains').select(['domain', 'verification_token', 'verified_at']).where('provider_id', '=', providerId).orderBy('domain').execute();
}

/** Notes that the domain's token was found in DNS. */
export async function markSsoDomainVerified(db: Db, providerId: string, domain: string, at: Date): Promise<void> {
  await db.updateTable('sso_domains').set({ verified_at: at }).where('provider_id', '=', providerId).where('domain', '=', domain).execute();
}

/** Which of these domains another IdP already owns. */
export async function ssoDomainsOwnedElsewhere(db: Db, providerId: string, domains: readonly string[]): Promise<string[]> {
  if (domains.length === 0) return [];
  const rows = await db.selectFrom('sso_domains').select('domain').where('domain', 'in', domains).where('provider_id', '<>', providerId).orderBy('domain').execute();
  return rows.map((row) => row.domain);
}

/** Creates or replaces the team's IdP (one per team); its id stays once made. */
export async function upsertSsoProvider(db: Db, provider: Insertable<SsoProvidersTable>) {
  const { id: _id, team_id: _team, ...changes } = provider;
  return db
    .insertInto('sso_providers')
    .values(provider)
    .onConflict((oc) => oc.column('team_id').doUpdateSet({ ...changes, updated_at: new Date() }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The IdP's domains become exactly these: a kept domain keeps its token and verification, a
 * new one gets `newToken()` and starts unverified (a domain another IdP claims fails on its key).
 */
export async function replaceSsoDomains(db: Db, providerId: string, domains: readonly string[], newToken: () => string): Promise<void> {
  const dropped = db.deleteFrom('sso_domains').where('provider_id', '=', providerId);
  await (domains.length > 0 ? dropped.where('domain', 'not in', domains) : dropped).execute();
  const kept = new Set((await listSsoDomains(db, providerId)).map((row) => row.domain));
  const added = domains.filter((domain) => !kept.has(domain));
  if (added.length > 0) await db.insertInto('sso_domains').values(added.map((domain) => ({ domain, provider_id: providerId, verification_token: newToken() }))).execute();
}

export async function deleteSsoProvider(db: Db, teamId: string): Promise<boolean> {
  const result = await db.deleteFrom('sso_providers').where('team_id', '=', teamId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function insertSsoSignIn(db: Db, signIn: { stateHash: string; providerId: string; expiresAt: Date }): Promise<void> {
  await db.insertInto('sso_sign_ins').values({ state_hash: signIn.stateHash, provider_id: signIn.providerId, expires_at: signIn.expiresAt }).execute();
}

/** Takes a live sign-in's state once: its IdP, or undefined when unknown, expired or already used. */
export async function takeSsoSignIn(db: Db, stateHash: string, now: Date) {
  return db
    .updateTable('sso_sign_ins')
    .set({ called_back_at: now })
    .where('state_hash', '=', stateHash)
    .where('called_back_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['provider_id'])
    .executeTakeFirst();
}

/** Forgets sign-ins that expired before `before`. */
export async function pruneSsoSignIns(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('sso_sign_ins').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Which of these ids are groups of the team. */
export async function teamGroupIds(db: Db, teamId: string, groupIds: readonly string[]): Promise<Set<string>> {
  if (groupIds.length === 0) return new Set();
  const rows = await db.selectFrom('synthetic_groups').select('id').where('team_id', '=', teamId).where('id', 'in', groupIds).execute();
  return new Set(rows.map((row) => row.id));
}

/** The account an IdP identity is linked to, if any. */
export async function findSsoIdentityUser(db: Db, issuer: string, subject: string): Promise<string | undefined> {
  return (await db.selectFrom('sso_identities').select('user_id').where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst())?.user_id;
}

/** The subject an account is linked to at an issuer, if any. */
export async function findSsoSubjectOfUser(db: Db, issuer: string, userId: string): Promise<string | undefined> {
  return (await db.selectFrom('sso_identities').select('subject').where('issuer', '=', issuer).where('user_id', '=', userId).executeTakeFirst())?.subject;
}

/** The IdP identities an account is linked to at an issuer (at most one), oldest first. */
export async function listSsoIdentitiesOfUser(db: Db, issuer: string, userId: string) {
  return db.selectFrom('sso_identities').select(['issuer', 'subject', 'created_at']).where('issuer', '=', issuer).where('user_id', '=', userId).orderBy('created_at').execute();
}

/** An account's single sign-on links, each with a team of the account's whose IdP is at that issuer, by team name. */
export async function listSsoLinksOfUser(db: Db, userId: string) {
  return db
    .selectFrom('sso_identities as identity')
    .innerJoin('sso_providers as provider', 'provider.issuer', 'identity.issuer')
    .innerJoin('team_members as member', (join) => join.onRef('member.team_id', '=', 'provider.team_id').onRef('member.user_id', '=', 'identity.user_id'))
    .innerJoin('teams as team', 'team.id', 'provider.team_id')
    .select(['identity.issuer', 'identity.created_at', 'team.id as team_id', 'team.name as team_name'])
    .where('identity.user_id', '=', userId)
    .orderBy('team.name')
    .orderBy('team.id')
    .execute();
}

/** Unlinks an account from its subject at an issuer; answers the link removed, undefined when there was none. */
export async function unlinkSsoIdentity(db: Db, issuer: string, userId: string) {
  return db.deleteFrom('sso_identities').where('issuer', '=', issuer).where('user_id', '=', userId).returning(['issuer', 'subject', 'created_at']).executeTakeFirst();
}

/**
 * Links an IdP subject to an account unless either is linked already (two first sign-ins
 * racing), then answers whether the subject is now this account's: false when the subject
 * went to another account, or the account to another subject at the issuer.
 */
export async function linkSsoIdentity(db: Db, identity: { issuer: string; subject: string; userId: string }): Promise<boolean> {
  await db
    .insertInto('sso_identities')
    .values({ issuer: identity.issuer, subject: identity.subject, user_id: identity.userId })
    .onConflict((conflict) => conflict.doNothing())
    .execute();
  return (await findSsoIdentityUser(db, identity.issuer, identity.subject)) === identity.userId;
}
