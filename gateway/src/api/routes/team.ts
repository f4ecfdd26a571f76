// /api/team: teams (the tenant that owns connections, groups and keys), their members,
// seats and invitations. Reading and accepting an invitation is public (its token is the
// proof): accepting signs in or creates the account.
import type { TeamRole as TeamRoleName } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, Team, TeamInvitation, TeamInvitationAccepted, TeamInvitationPreview, TeamMember, TeamMemberRemoved, TeamSeats } from '../answers.ts';
import { ok } from '../reply.ts';
import { Description, Email, id, Name, TeamRole, TimeZone, text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const TeamBody = z.object({ name: Name, description: Description.default('') });
const InviteBody = z.object({ teamId: id('team'), email: Email, role: TeamRole.default('MEMBER') });
const InvitationToken = text(200).min(20, 'must be the token from the invitation');
const AcceptBody = z.object({ token: InvitationToken, password: z.string().min(1, 'must not be empty').max(1024, 'is too long'), name: Name.optional() });
const PreviewBody = z.object({ token: InvitationToken });
const TeamParams = z.object({ teamId: id('team') });
const InvitationParams = z.object({ invitationId: id('invitation') });
const TeamChanges = z
  .object({ name: Name.optional(), description: Description.optional(), timeZone: TimeZone.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { message: 'must change name, description or timeZone' });
const RoleBody = z.object({ teamId: id('team'), userId: id('user'), role: TeamRole });
const MemberBody = z.object({ teamId: id('team'), userId: id('user') });

const teamView = (team: { id: string; name: string; description: string; time_zone: string; created_at: Date; role?: TeamRoleName }) => ({
  id: team.id,
  name: team.name,
  description: team.description,
  timeZone: team.time_zone,
  createdAt: team.created_at,
  ...(team.role ? { role: team.role } : {}),
});

const invitationView = (invitation: { id: string; team_id: string; email: string; role: string; expires_at: Date }) => ({
  id: invitation.id,
  teamId: invitation.team_id,
  email: invitation.email,
  // A team's own invitation (no group) carries a team role.
  role: invitation.role as TeamRoleName,
  expiresAt: invitation.expires_at,
});

const memberView = (member: { id: string; email: string; name: string; avatar: string | null; role: TeamRoleName; joined_at: Date }) => ({
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
      return reply.code(201).send(ok(invitationView(invitation), 'Invitation sent'));
    });
    api.post('/accept', { config: { public: true }, schema: { summary: 'Accept a team invitation (creates the account if needed)', body: AcceptBody, response: { 200: answer(TeamInvitationAccepted) } } }, async (request) => {
      const accepted = await teams.accept(request.body);
      return ok({ token: accepted.token, user: accepted.user, team: teamView(accepted.team) }, 'Invitation accepted');
    });
    // POST, not GET: the token stays out of URLs and the logs that keep them.
    api.post('/invitation', { config: { public: true }, schema: { summary: 'What a team invitation’s token opens: the team, the invited e-mail and whether it has an account', body: PreviewBody, response: { 200: answer(TeamInvitationPreview) } } }, async (request) =>
      ok(await teams.preview(request.body.token)),
    );
    api.get('/:teamId/seats', { schema: { summary: 'A team’s seats: included in its plan, taken by members and pending invitations', params: TeamParams, response: { 200: answer(TeamSeats) } } }, async (request) =>
      ok(await teams.seats(signedIn(request).userId, request.params.teamId)),
    );
    api.get('/:teamId/invitations', { schema: { summary: 'A team’s invitations waiting for an answer (team admins)', params: TeamParams, response: { 200: answer(z.array(TeamInvitation)) } } }, async (request) =>
      ok((await teams.pendingInvitations(signedIn(request).userId, request.params.teamId)).map(invitationView)),
    );
    api.post('/invitations/:invitationId/resend', { schema: { summary: 'Mail a pending team invitation again (new link, 7 more days)', params: InvitationParams, response: { 200: answer(TeamInvitation) } } }, async (request) =>
      ok(invitationView(await teams.resendInvitation(signedIn(request).userId, request.params.invitationId)), 'Invitation resent'),
    );
    api.delete('/invitations/:invitationId/revoke', { schema: { summary: 'Withdraw a pending team invitation', params: InvitationParams, response: { 200: answer(TeamInvitation) } } }, async (request) =>
      ok(invitationView(await teams.revokeInvitation(signedIn(request).userId, request.params.invitationId)), 'Invitation revoked'),
    );
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
