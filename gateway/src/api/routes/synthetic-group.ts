// /api/synthetic-group: groups, their members, keys and invitations. Accepting an
// invitation needs the invited account signed in.
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import {
  AddedMembers,
  answer,
  CreatedKey,
  Deleted,
  Group,
  GroupInvitation,
  GroupInvitationAccepted,
  GroupMember,
  GroupMemberRemoved,
  GroupMemberRole,
  IssuedKey,
  RevokedKey,
  UsageTotals,
} from '../answers.ts';
import { ok } from '../reply.ts';
import { DateRangeQuery, Description, Email, GroupRole, id, KeySettings, Name, text } from '../schemas.ts';
import { signedIn } from '../session.ts';

const GroupBody = z.object({ teamId: id('team'), name: Name, description: Description.default('') });
const GroupChanges = z
  .object({ name: Name.optional(), description: Description.optional() })
  .refine((body) => body.name !== undefined || body.description !== undefined, { message: 'must change name or description' });
const ListQuery = z.object({ teamId: id('team').optional(), search: text(200).optional() });
const IdParams = z.object({ id: id('synthetic group') });
const GroupParams = z.object({ groupId: id('synthetic group') });
const MemberParams = z.object({ groupId: id('synthetic group'), userId: id('user') });
const KeyParams = z.object({ id: id('key') });
const InvitationParams = z.object({ invitationId: id('invitation') });
const AddMembersBody = z.object({
  users: z.array(z.object({ userId: id('user'), role: GroupRole.default('OBSERVER') })).min(1, 'must name at least one user').max(100, 'must name at most 100 users'),
});
const RoleBody = z.object({ role: GroupRole });
const KeyBody = z.object({
  name: Name,
  kind: z.enum(['byok', 'optimised', 'byom'], { error: 'must be one of byok, optimised, byom' }),
  connectionId: id('connection').optional(),
  settings: KeySettings.optional(),
});
const KeyChanges = z
  .object({ name: Name.optional(), settings: KeySettings.optional() })
  .refine((body) => body.name !== undefined || body.settings !== undefined, { message: 'must change name or settings' });
const InviteBody = z.object({ email: Email, role: GroupRole.default('OBSERVER') });
const AcceptBody = z.object({ token: text(200).min(20, 'must be the token from the invitation') });

export const groupRoutes =
  (services: Pick<ControlPlaneServices, 'groups'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    const { groups } = services;
    const me = (request: Parameters<typeof signedIn>[0]) => signedIn(request).userId;

    api.post('/', { schema: { summary: 'Create a synthetic group', body: GroupBody, response: { 201: answer(Group) } } }, async (request, reply) =>
      reply.code(201).send(ok(await groups.create(me(request), request.body), 'Synthetic group created')),
    );
    api.get('/', { schema: { summary: 'The groups you can see', querystring: ListQuery, response: { 200: answer(z.array(Group)) } } }, async (request) =>
      ok(await groups.list(me(request), request.query)),
    );
    api.post(
      '/accept-invite',
      { config: { missingSessionMessage: 'Please log in to Continue!' }, schema: { summary: 'Accept a group invitation (signed in as the invited email)', body: AcceptBody, response: { 200: answer(GroupInvitationAccepted) } } },
      async (request) => ok(await groups.acceptInvitation(signedIn(request), request.body.token), 'Invitation accepted'),
    );
    api.post('/provider-key/create/:groupId', { schema: { summary: 'Issue a key for a group', params: GroupParams, body: KeyBody, response: { 201: answer(CreatedKey) } } }, async (request, reply) => {
      const { key, plaintext } = await groups.createKey(me(request), request.params.groupId, request.body);
      return reply.code(201).send(
        ok(
          {
            key: plaintext,
            providerKey: { id: key.id, groupId: key.group_id, connectionId: key.connection_id, kind: key.kind, name: key.name, prefix: key.key_prefix, settings: key.settings, createdAt: key.created_at },
          },
          'Key created. Copy it now: it will not be shown again.',
        ),
      );
    });
    api.patch('/provider-key/:id', { schema: { summary: 'Rename a key or change its settings: rate limits, timeout, output cap, model overrides and routing', params: KeyParams, body: KeyChanges, response: { 200: answer(IssuedKey) } } }, async (request) =>
      ok(await groups.updateKey(me(request), request.params.id, request.body), 'Key updated'),
    );
    api.delete('/provider-key/:id', { schema: { summary: 'Revoke a key', params: KeyParams, response: { 200: answer(RevokedKey) } } }, async (request) =>
      ok(await groups.revokeKey(me(request), request.params.id), 'Key revoked'),
    );
    api.post('/member/:groupId', { schema: { summary: 'Add team members to a group', params: GroupParams, body: AddMembersBody, response: { 201: answer(AddedMembers) } } }, async (request, reply) =>
      reply.code(201).send(ok({ addedUsers: await groups.addMembers(me(request), request.params.groupId, request.body.users) }, 'Members added')),
    );
    api.get('/member/:groupId', { schema: { summary: 'A group’s members', params: GroupParams, response: { 200: answer(z.array(GroupMember)) } } }, async (request) =>
      ok(await groups.members(me(request), request.params.groupId)),
    );
    api.patch('/member/:groupId/:userId', { schema: { summary: 'Change a member’s group role', params: MemberParams, body: RoleBody, response: { 200: answer(GroupMemberRole) } } }, async (request) =>
      ok(await groups.changeMemberRole(me(request), request.params.groupId, request.params.userId, request.body.role), 'Role updated'),
    );
    api.delete('/member/:groupId/:userId', { schema: { summary: 'Remove a member from a group', params: MemberParams, response: { 200: answer(GroupMemberRemoved) } } }, async (request) =>
      ok(await groups.removeMember(me(request), request.params.groupId, request.params.userId), 'Member removed'),
    );
    api.post('/:groupId/invite', { schema: { summary: 'Invite someone to a group by email', params: GroupParams, body: InviteBody, response: { 201: answer(GroupInvitation) } } }, async (request, reply) =>
      reply.code(201).send(ok(await groups.invite(me(request), request.params.groupId, request.body), 'Invitation sent')),
    );
    api.get('/:groupId/invitations', { schema: { summary: 'A group’s invitations', params: GroupParams, response: { 200: answer(z.array(GroupInvitation)) } } }, async (request) =>
      ok(await groups.invitations(me(request), request.params.groupId)),
    );
    api.post('/invitations/:invitationId/resend', { schema: { summary: 'Send an invitation again (new link)', params: InvitationParams, response: { 200: answer(GroupInvitation) } } }, async (request) =>
      ok(await groups.resendInvitation(me(request), request.params.invitationId), 'Invitation resent'),
    );
    api.delete('/invitations/:invitationId/revoke', { schema: { summary: 'Revoke an invitation', params: InvitationParams, response: { 200: answer(GroupInvitation) } } }, async (request) =>
      ok(await groups.revokeInvitation(me(request), request.params.invitationId), 'Invitation revoked'),
    );
    api.get('/:id/usage', { schema: { summary: 'A group’s usage totals over a date range, cost in GBP and USD', params: IdParams, querystring: DateRangeQuery, response: { 200: answer(UsageTotals) } } }, async (request) =>
      ok(await groups.usage(me(request), request.params.id, request.query)),
    );
    api.get('/:id', { schema: { summary: 'One group with members, keys and usage', params: IdParams, response: { 200: answer(Group) } } }, async (request) =>
      ok(await groups.get(me(request), request.params.id)),
    );
    api.put('/:id', { schema: { summary: 'Edit a group', params: IdParams, body: GroupChanges, response: { 200: answer(Group) } } }, async (request) =>
      ok(await groups.update(me(request), request.params.id, request.body), 'Synthetic group updated'),
    );
    api.delete('/:id', { schema: { summary: 'Delete a group (its keys stop working)', params: IdParams, response: { 200: answer(Deleted) } } }, async (request) =>
      ok(await groups.remove(me(request), request.params.id), 'Synthetic group deleted'),
    );
  };
