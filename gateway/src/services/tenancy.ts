// Teams, synthetic groups, provider connections and issued keys: the control-plane
// writes of the walking skeleton. Every read and write is scoped by team, and every
// change of keys or connections writes an audit row in the same transaction.
import { randomUUID } from 'node:crypto';
import {
  findConnection,
  findGroupForUser,
  findTeamDataKey,
  findTeamRole,
  insertConnection,
  insertGroup,
  insertIssuedKey,
  insertTeam,
  insertTeamDataKeyIfAbsent,
  type KeyKind,
  type SqlStore,
  writeAudit,
} from '@spendgate/store';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.ts';
import { findProvider } from '../providers/registry.ts';
import type { Envelope } from '../security/envelope.ts';
import { generateIssuedKey } from '../security/issued-keys.ts';
import { outboundUrlProblem } from '../security/outbound-url.ts';

const DATA_KEY_VERSION = 1;

export function createTenancyService(deps: { sql: SqlStore; envelope: Envelope; upstreamAllowedHosts: string[] }) {
  const { db } = deps.sql;

  async function requireTeamMember(teamId: string, userId: string) {
    const role = await findTeamRole(db, teamId, userId);
    if (!role) throw new NotFoundError('Team');
    return role;
  }

  async function teamDataKey(teamId: string) {
    return (
      (await findTeamDataKey(db, teamId)) ??
      (await insertTeamDataKeyIfAbsent(db, {
        teamId,
        keyVersion: DATA_KEY_VERSION,
        wrappedKey: deps.envelope.newDataKey(teamId, DATA_KEY_VERSION).wrapped,
      }))
    );
  }

  return {
    async createTeam(userId: string, input: { name: string; description: string }) {
      return db.transaction().execute(async (trx) => {
        const team = await insertTeam(trx, { id: randomUUID(), ...input, createdBy: userId });
        await writeAudit(trx, { teamId: team.id, actorUserId: userId, action: 'team.created', targetType: 'team', targetId: team.id });
        return team;
      });
    },

    async createConnection(
      userId: string,
      input: { teamId: string; provider: string; name: string; apiKey: string; baseUrl?: string | undefined },
    ) {
      if ((await requireTeamMember(input.teamId, userId)) !== 'ADMIN') {
        throw new ForbiddenError('Only team admins can add provider connections');
      }
      const adapter = findProvider(input.provider);
      if (!adapter) throw new ValidationError('provider', `provider: unknown provider "${input.provider}"`);
      const baseUrl = (input.baseUrl ?? adapter.defaultBaseUrl)?.replace(/\/+$/, '');
      if (!baseUrl) throw new ValidationError('baseUrl', `baseUrl is required for provider "${adapter.id}"`);
      const problem = outboundUrlProblem(baseUrl, deps.upstreamAllowedHosts);
      if (problem) throw new ValidationError('baseUrl', `baseUrl ${problem}`);

      const dataKey = await teamDataKey(input.teamId);
      const id = randomUUID();
      const ciphertext = deps.envelope.encryptSecret(
        dataKey.wrapped_key,
        { teamId: input.teamId, connectionId: id, version: dataKey.key_version },
        input.apiKey,
      );
      return db.transaction().execute(async (trx) => {
        const connection = await insertConnection(trx, {
          id,
          team_id: input.teamId,
          provider: adapter.id,
          name: input.name,
          base_url: baseUrl,
          secret_ciphertext: ciphertext,
          secret_key_version: dataKey.key_version,
          secret_tail: input.apiKey.slice(-4),
          created_by: userId,
        });
        await writeAudit(trx, {
          teamId: input.teamId,
          actorUserId: userId,
          action: 'connection.created',
          targetType: 'provider_connection',
          targetId: id,
          details: { provider: adapter.id, name: input.name },
        });
        return connection;
      });
    },

    async createGroup(userId: string, input: { teamId: string; name: string; description: string }) {
      await requireTeamMember(input.teamId, userId);
      return db.transaction().execute(async (trx) => {
        const group = await insertGroup(trx, { id: randomUUID(), ...input, createdBy: userId });
        await writeAudit(trx, { teamId: input.teamId, actorUserId: userId, action: 'group.created', targetType: 'synthetic_group', targetId: group.id });
        return group;
      });
    },

    /** The group if the user may see it (a member of its team); else NotFound. */
    async groupForUser(groupId: string, userId: string) {
      const group = await findGroupForUser(db, groupId, userId);
      if (!group) throw new NotFoundError('Synthetic group');
      return group;
    },

    async createKey(
      userId: string,
      groupId: string,
      input: { name: string; kind: KeyKind; connectionId?: string | undefined },
    ) {
      const group = await this.groupForUser(groupId, userId);
      const mayManageKeys = group.teamRole === 'ADMIN' || group.groupRole === 'ADMIN' || group.groupRole === 'MAINTAINER';
      if (!mayManageKeys) throw new ForbiddenError('Only group admins and maintainers can create keys');
      if (input.kind !== 'byok') throw new ValidationError('kind', `kind: "${input.kind}" keys are not available yet`);
      if (!input.connectionId) throw new ValidationError('connectionId', 'connectionId is required for a byok key');
      const connection = await findConnection(db, group.team_id, input.connectionId);
      if (!connection) throw new ValidationError('connectionId', 'connectionId: no such connection in this team');

      const generated = generateIssuedKey();
      return db.transaction().execute(async (trx) => {
        const key = await insertIssuedKey(trx, {
          id: randomUUID(),
          team_id: group.team_id,
          group_id: group.id,
          connection_id: connection.id,
          kind: input.kind,
          name: input.name,
          key_hash: generated.hash,
          key_prefix: generated.prefix,
          created_by: userId,
        });
        await writeAudit(trx, {
          teamId: group.team_id,
          actorUserId: userId,
          action: 'key.created',
          targetType: 'issued_key',
          targetId: key.id,
          details: { kind: key.kind, groupId: group.id, connectionId: connection.id },
        });
        return { key, plaintext: generated.plaintext };
      });
    },
  };
}

export type TenancyService = ReturnType<typeof createTenancyService>;
