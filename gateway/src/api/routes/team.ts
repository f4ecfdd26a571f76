// /api/team: teams (the tenant that owns connections, groups and keys), their members
// and invitations. Accepting an invitation is public: it signs in or creates the account.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, Team, TeamInvitation, TeamInvitationAccepted, TeamMember, TeamMemberRemoved } from '../answers.ts';
import { ok } from '../reply.ts';
import { Description, Email, id, Name, TeamRole, TimeZone, text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const TeamBody = z.object({ name: Name, description: Description.default('') });
const InviteBody = z.object({ teamId: id('team'), email: Email, role: TeamRole.default('MEMBER') });
const AcceptBody = z.object({ token: text(200).min(20, 'must be the token from the invitation'), password: z.string().min(1, 'must not be empty').max(1024, 'is too long'), name: Name.optional() });
const TeamParams = z.object({ teamId: id('team') });
const TeamChanges = z
  .object({ name: Name.optional(), description: Description.optional(), timeZone: TimeZone.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'must change name, description or timeZone' });
const RoleBody = z.object({ teamId: id('team'), userId: id('user'), role: TeamRole });
const MemberBody = z.object({ teamId: id('team'), userId: id('user') });

const teamView = (team: { id: string; name: string; description: string; time_zone: string; created_at: Date; role?: string }) => ({
  id: team.id,
  name: team.name,
  description: team.description,
  timeZone: team.time_zone,
  createdAt: team.created_at,
  ...(team.role ? { role: team.role } : {}),
});

const memberView = (member: { id: string; email: string; name: string; avatar: string | null; role: string; joined_at: Date }) => ({
  id: member.id,
  email: member.email,
  name: member.name,
  avatar: member.avatar,
  role: member.role,
  joinedAt: member.joined_at,
});

export const teamRoutes =
  (services: Pick<ControlPlaneServices, 'teams'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    const { teams } = services;
    api.post('/', { schema: { summary: 'Create a team (you become its admin)', body: TeamBody, response: { 201: answer(Team) } } }, async (request, reply) =>
      reply.code(201).send(ok(teamView({ ...(await teams.createTeam(signedIn(request).userId, request.body)), role: 'ADMIN' }), 'Team created')),
    );
    api.get('/', { schema: { summary: 'Your teams', response: { 200: answer(z.array(Team)) } } }, async (request) => ok((await teams.listTeams(signedIn(request).userId)).map(teamView)));
    api.post('/invite', { schema: { summary: 'Invite someone to a team by email', body: InviteBody, response: { 201: answer(TeamInvitation) } } }, async (request, reply) => {
      const invitation = await teams.invite(signedIn(request).userId, request.body);
      return reply.code(201).send(
        ok({ id: invitation.id, teamId: invitation.team_id, email: invitation.email, role: invitation.role, expiresAt: invitation.expires_at }, 'Invitation sent'),
      );
    });
    api.post('/accept', { config: { public: true }, schema: { summary: 'Accept a team invitation (creates the account if needed)', body: AcceptBody, response: { 200: answer(TeamInvitationAccepted) } } }, async (request) => {
      const accepted = await teams.accept(request.body);
      return ok({ token: accepted.token, user: accepted.user, team: teamView(accepted.team) }, 'Invitation accepted');
    });
    api.get('/members/:teamId', { schema: { summary: 'A team’s members', params: TeamParams, response: { 200: answer(z.array(TeamMember)) } } }, async (request) =>
      ok((await teams.members(signedIn(request).userId, request.params.teamId)).map(memberView)),
    );
    api.patch('/role', { schema: { summary: 'Change a member’s team role', body: RoleBody, response: { 200: answer(TeamMember) } } }, async (request) =>
      ok(memberView(await teams.changeRole(signedIn(request).userId, request.body)), 'Role updated'),
    );
    api.patch('/:teamId', { schema: { summary: 'Rename a team or set the time zone its budget windows follow (team admins)', params: TeamParams, body: TeamChanges, response: { 200: answer(Team) } } }, async (request) =>
      ok(teamView(await teams.updateTeam(signedIn(request).userId, request.params.teamId, request.body)), 'Team updated'),
    );
    api.delete('/member', { schema: { summary: 'Remove a member from a team', body: MemberBody, response: { 200: answer(TeamMemberRemoved) } } }, async (request) =>
      ok(await teams.removeMember(signedIn(request).userId, request.body), 'Member removed'),
    );
  };
