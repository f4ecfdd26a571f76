// /api/sso: a team's identity provider, its domains' DNS verification and the identities its
// members' accounts are linked to (team admins, Enterprise); /api/auth/sso: signing in
// through it (start: the IdP's URL for an address; callback: the query the IdP sent the
// browser back with, answered with a session).
import { GROUP_ROLES, TEAM_ROLES } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { SsoService } from '../../control/sso.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, Session, SsoIdentities, SsoSettings, SsoStart } from '../answers.ts';
import { ok } from '../reply.ts';
import { Email, text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const TeamId = z.uuid('must be a team id');
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const Domain = z.string().trim().toLowerCase().regex(DOMAIN, 'must be e-mail domains such as example.com');
const Mapping = z
  .strictObject({
    idpGroup: text(256).min(1, 'must name the IdP group'),
    teamRole: z.enum(TEAM_ROLES, { error: `must be one of ${TEAM_ROLES.join(', ')}` }),
    groupId: z.uuid('must be a group id').nullable().default(null),
    groupRole: z.enum(GROUP_ROLES, { error: `must be one of ${GROUP_ROLES.join(', ')}` }).nullable().default(null),
  })
  .refine((mapping) => (mapping.groupId === null) === (mapping.groupRole === null), { path: ['groupRole'], message: 'must be given with groupId, and only with it' });
const SettingsBody = z.strictObject({
  teamId: TeamId,
  issuer: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048, 'must be at most 2048 characters').transform((issuer) => issuer.replace(/\/+$/, '')),
  clientId: text(512).min(1, 'must not be empty'),
  clientSecret: z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters').optional(),
  domains: z.array(Domain).min(1, 'must list at least one domain').max(50, 'must list at most 50 domains'),
  enforced: z.boolean({ error: 'must be true or false' }),
  groupsClaim: text(128).min(1, 'must name the claim').default('groups'),
  defaultTeamRole: z.enum(TEAM_ROLES, { error: `must be one of ${TEAM_ROLES.join(', ')} or null` }).nullable(),
  mappings: z.array(Mapping).max(200, 'must list at most 200 mappings'),
});
const TeamQuery = z.object({ teamId: TeamId });
const VerifyBody = z.strictObject({ teamId: TeamId, domain: Domain });
const MemberQuery = z.object({ teamId: TeamId, userId: z.uuid('must be a user id') });
const StartBody = z.strictObject({ email: Email });
const CallbackBody = z.strictObject({
  params: z
    .record(z.string().max(64, 'names must be at most 64 characters'), z.string().max(8192, 'values must be at most 8192 characters'), { error: 'must be the query the identity provider sent back' })
    .refine((params) => Object.keys(params).length <= 20, 'must hold at most 20 parameters'),
});

export const ssoSettingsRoutes =
  (deps: { sso: SsoService }): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    api.get('/', { schema: { summary: "A team's identity provider, if any (team admins, Enterprise)", querystring: TeamQuery, response: { 200: answer(SsoSettings) } } }, async (request) =>
      ok(await deps.sso.settings(signedIn(request).userId, request.query.teamId)),
    );
    api.put('/', { schema: { summary: "Set the team's identity provider, its domains, enforcement and role mapping (team admins, Enterprise)", body: SettingsBody, response: { 200: answer(SsoSettings) } } }, async (request) =>
      ok(await deps.sso.save(signedIn(request).userId, request.body), 'Single sign-on saved'),
    );
    api.post('/verify-domain', { schema: { summary: "Verify a domain of the team's identity provider by its DNS TXT record (team admins, Enterprise)", body: VerifyBody, response: { 200: answer(SsoSettings) } } }, async (request) =>
      ok(await deps.sso.verifyDomain(signedIn(request).userId, request.body.teamId, request.body.domain), `${request.body.domain} verified`),
    );
    api.get(
      '/identities',
      { schema: { summary: "The identities a member's account is linked to at the team's identity provider (team admins, or the member themself; Enterprise)", querystring: MemberQuery, response: { 200: answer(SsoIdentities) } } },
      async (request) => ok(await deps.sso.identities(signedIn(request).userId, request.query.teamId, request.query.userId)),
    );
    api.delete(
      '/identities',
      { schema: { summary: "Unlink a member's account from its identity at the team's identity provider (team admins, or the member themself; Enterprise)", querystring: MemberQuery, response: { 200: answer(z.null()) } } },
      async (request) => {
        await deps.sso.unlinkIdentity(signedIn(request).userId, request.query.teamId, request.query.userId);
        return ok(null, 'Identity unlinked');
      },
    );
    api.delete('/', { schema: { summary: "Remove the team's identity provider (team admins, Enterprise)", querystring: TeamQuery, response: { 200: answer(z.null()) } } }, async (request) => {
      await deps.sso.remove(signedIn(request).userId, request.query.teamId);
      return ok(null, 'Single sign-on removed');
    });
  };

export const ssoSignInRoutes =
  (deps: { sso: SsoService }): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    const open = { public: true };
    api.post('/start', { config: open, schema: { summary: "Start signing in through the identity provider of the address's domain", body: StartBody, response: { 200: answer(SsoStart) } } }, async (request) =>
      ok(await deps.sso.start(request.body.email, request.ip)),
    );
    api.post('/callback', { config: open, schema: { summary: 'Finish signing in with the query the identity provider sent the browser back with', body: CallbackBody, response: { 200: answer(Session) } } }, async (request) =>
      ok(await deps.sso.callback(request.body.params), 'Signed in with SSO'),
    );
  };
