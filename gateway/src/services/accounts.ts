// Accounts: registration and sign-in. Answers carry a session token and the public user.
import { randomUUID } from 'node:crypto';
import { findUserByEmail, insertUser, type SqlStore, type User } from '@spendgate/store';
import { ConflictError, UnauthorizedError } from '../errors.ts';
import { hashPassword, verifyPassword } from '../security/passwords.ts';
import type { SessionTokens } from '../security/session-tokens.ts';

export interface PublicUser {
  id: string;
  email: string;
  name: string;
  avatar: string | null;
}

export function publicUser(user: User): PublicUser {
  return { id: user.id, email: user.email, name: user.name, avatar: user.avatar };
}

// A constant hash to verify against when the email is unknown, so both paths cost the same.
const timingDecoy = hashPassword('spendgate-timing-decoy');

export function createAccountService(deps: { sql: SqlStore; sessions: SessionTokens }) {
  const session = async (user: User) => ({
    token: await deps.sessions.sign({ userId: user.id, email: user.email, name: user.name, avatar: user.avatar }),
    user: publicUser(user),
  });

  return {
    async register(input: { email: string; password: string; name: string }) {
      if (await findUserByEmail(deps.sql.db, input.email)) {
        throw new ConflictError('An account with this email already exists');
      }
      const user = await insertUser(deps.sql.db, {
        id: randomUUID(),
        email: input.email,
        name: input.name,
        passwordHash: await hashPassword(input.password),
      }).catch((error: unknown) => {
        if ((error as { code?: string }).code === '23505') throw new ConflictError('An account with this email already exists');
        throw error;
      });
      return session(user);
    },

    async login(input: { email: string; password: string }) {
      const user = await findUserByEmail(deps.sql.db, input.email);
      const valid = user
        ? await verifyPassword(user.password_hash, input.password)
        : await verifyPassword(await timingDecoy, `${input.password}-x`);
      if (!user || !valid) throw new UnauthorizedError('Invalid email or password');
      return session(user);
    },
  };
}
