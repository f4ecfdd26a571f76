/**
 * Accounts: registration (with a plan's 60-day trial), sign-in by password or Google,
 * profile and metadata, password changes and resets, and email one-time codes.
 * Answers that sign in carry a session token and the public user.
 *
 * Until its email is verified an account's sessions are marked unverified (the API lets
 * them only see and edit the profile and verify the email): registering mails a code,
 * and verifying it with the account's session answers a full session. Google sign-in
 * links an account whose email is verified; one never verified is taken over (its
 * password and sessions end). Answers that tell whether an address has an account are
 * rate limited together per address and client.
 *
 * An address whose verified domain signs in through its team's identity provider, enforced,
 * may not sign in with a password or Google, register or reset a password (403 `sso_required`).
 *
 * One-time codes: 6 digits, HMAC-hashed, single use, 10 minutes, 5 tries; sending is
 * rate limited per account and address, and so are sign-in and code checks.
 */
import { randomUUID } from 'node:crypto';
import type { PlanSlug } from '@spendgate/core';
import { AppError, ConflictError, emailDomain, SSO_REQUIRED_MESSAGE, UnauthorizedError, ValidationError } from '@spendgate/core';
import type { Mailer } from '@spendgate/store';
import {
  consumeOtp,
  countOtpAttempt,
  findLiveOtp,
  findSsoProviderForDomain,
  findSubscriptionPlan,
  findUserByEmail,
  findUserByGoogleSubject,
  listSsoLinksOfUser,
  findUserById,
  insertOtp,
  insertUser,
  insertVerifiedUser,
  linkGoogleAccount,
  linkSsoIdentity,
  markEmailVerified,
  mergeUserMetadata,
  type OtpPurpose,
  otpConfirmedSince,
  recordSignIn,
  type SqlStore,
  setUserPassword,
  takeOverWithGoogle,
  type User,
  updateUserProfile,
} from '@spendgate/store';
import type { GoogleSignIn } from '../security/google-id-tokens.ts';
import type { OneTimeCodes } from '../security/one-time-codes.ts';
import { passwordProblem } from '../security/password-policy.ts';
import { hashPassword, verifyPassword } from '../security/passwords.ts';
import type { RateLimiter } from '../security/rate-limit.ts';
import type { SessionClaims, SessionTokens } from '../security/session-tokens.ts';
import type { PlanService, SubscriptionSummary } from './plans.ts';

export const OTP_LIFETIME_MS = 10 * 60_000;
export const OTP_MAX_TRIES = 5;
/** How long a code confirmed before registering still marks the new account verified. */
const REGISTER_CONFIRMATION_MS = 60 * 60_000;

export interface PublicUser {
  id: string;
  email: string;
  name: string;
  avatar: string | null;
  metadata: Record<string, unknown>;
  emailVerified: boolean;
  subscription: SubscriptionSummary | null;
}

// A constant hash to verify against when the email is unknown, so both paths cost the same.
const timingDecoy = hashPassword('spendgate-timing-decoy');

const OTP_MAIL: Record<OtpPurpose, { subject: string; intro: string }> = {
  register: { subject: 'Your Spendgate sign-up code', intro: 'Use this code to confirm your email and finish signing up:' },
  'verify-email': { subject: 'Your Spendgate verification code', intro: 'Use this code to verify your email address:' },
  'reset-password': { subject: 'Reset your Spendgate password', intro: 'Use this code to choose a new password:' },
};

async function checkPassword(password: string, email: string, field = 'password') {
  const problem = await passwordProblem(password, email);
  if (problem) throw new ValidationError(field, `${field} ${problem}`);
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

export function createAccountService(deps: {
  sql: SqlStore;
  sessions: SessionTokens;
  codes: OneTimeCodes;
  limiter: RateLimiter;
  mailer: Mailer;
  plans: PlanService;
  google: GoogleSignIn | undefined;
  /** Emails the operator made platform admins (they must be verified to count). */
  platformAdminEmails: readonly string[];
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  async function publicUser(user: User): Promise<PublicUser> {
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      avatar: user.avatar,
      metadata: user.metadata,
      emailVerified: user.email_verified_at !== null,
      subscription: await deps.plans.summary(user.id),
    };
  }

  const claimsOf = (user: User): SessionClaims => ({
    userId: user.id,
    email: user.email,
    name: user.name,
    sessionVersion: user.session_version,
    emailVerified: user.email_verified_at !== null,
  });

  /** A session for the account, noted as its sign-in (every path comes here: password, code, Google, invitation, SSO). */
  const session = async (user: User) => {
    await recordSignIn(db, user.id, now());
    return { token: await deps.sessions.sign(claimsOf(user)), user: await publicUser(user) };
  };

  async function requireUser(userId: string): Promise<User> {
    const user = await findUserById(db, userId);
    if (!user) throw new UnauthorizedError('Session expired. Please login again.');
    return user;
  }

  async function planSlugFor(planId: string | undefined): Promise<PlanSlug> {
    if (!planId) return 'free-trial';
    const plan = await findSubscriptionPlan(db, planId);
    if (!plan) throw new ValidationError('planId', 'planId: no such plan');
    if (plan.price_micros === null) throw new ValidationError('planId', 'planId: the Enterprise plan is arranged with our sales team');
    return plan.slug as PlanSlug;
  }

  /** Creates an account and starts its trial, in one transaction. */
  async function createAccount(
    input: {
      email: string;
      name: string;
      passwordHash: string | null;
      verified: boolean;
      avatar?: string | null;
      googleSubject?: string;
      ssoIdentity?: { issuer: string; subject: string };
    },
    planSlug: PlanSlug,
  ): Promise<User> {
    return db
      .transaction()
      .execute(async (trx) => {
        const fields = { id: randomUUID(), email: input.email, name: input.name };
        const user = input.verified
          ? await insertVerifiedUser(trx, { ...fields, passwordHash: input.passwordHash, avatar: input.avatar ?? null, ...(input.googleSubject ? { googleSubject: input.googleSubject } : {}) })
          : await insertUser(trx, { ...fields, passwordHash: input.passwordHash! });
        if (input.ssoIdentity) await linkSsoIdentity(trx, { ...input.ssoIdentity, userId: user.id });
        await deps.plans.startTrial(trx, user.id, planSlug);
        return user;
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) throw new ConflictError('An account with this email already exists');
        throw error;
      });
  }

  /** Refuses password or Google sign-in, registration and reset for an address whose verified domain's IdP is enforced (on a plan with SSO). */
  async function refuseIfSsoEnforced(email: string): Promise<void> {
    const provider = await findSsoProviderForDomain(db, emailDomain(email));
    if (provider?.enforced && provider.domain_verified_at && (await deps.plans.teamTerms(provider.team_id)).terms.singleSignOn) throw new AppError(403, 'sso_required', SSO_REQUIRED_MESSAGE);
  }

  async function sendCode(email: string, purpose: OtpPurpose, ip: string): Promise<void> {
    await deps.limiter.hit('otp-send', { account: email, ip });
    await mailCode(email, purpose);
  }

  async function mailCode(email: string, purpose: OtpPurpose, mail = OTP_MAIL[purpose]): Promise<void> {
    const code = deps.codes.generate();
    await insertOtp(db, {
      id: randomUUID(),
      email,
      purpose,
      codeHash: deps.codes.hash(email, purpose, code),
      expiresAt: new Date(now().getTime() + OTP_LIFETIME_MS),
    });
    const { subject, intro } = mail;
    await deps.mailer.send({
      to: email,
      subject,
      text: `${intro}\n\n    ${code}\n\nThe code works once and expires in 10 minutes. If you did not ask for it, you can ignore this email.\n\n— Spendgate`,
    });
  }

  /** Checks a code and uses it up; every wrong try counts, even though the answer is an error. */
  async function useCode(email: string, purpose: OtpPurpose, code: string, ip: string): Promise<void> {
    await deps.limiter.hit('otp-verify', { account: email, ip });
    const outcome = await db.transaction().execute(async (trx) => {
      const otp = await findLiveOtp(trx, email, purpose);
      if (!otp || new Date(otp.expires_at) <= now()) return 'expired' as const;
      if (deps.codes.matches(otp.code_hash, email, purpose, code)) {
        await consumeOtp(trx, otp.id, now(), true);
        return 'ok' as const;
      }
      await countOtpAttempt(trx, otp.id);
      if (otp.attempts + 1 >= OTP_MAX_TRIES) {
        await consumeOtp(trx, otp.id, now(), false);
        return 'locked' as const;
      }
      return 'wrong' as const;
    });
    if (outcome === 'expired') throw new ValidationError('otp', 'otp is invalid or has expired. Please request a new code.');
    if (outcome === 'locked') throw new ValidationError('otp', 'otp: too many wrong tries. Please request a new code.');
    if (outcome === 'wrong') throw new ValidationError('otp', 'otp is incorrect');
  }

  return {
    publicUser,

    /**
     * The account behind a valid token as it is now, unless its sessions ended after the
     * token was signed; verified only if both the token and the account say so.
     */
    async sessionUser(claims: SessionClaims): Promise<SessionClaims | undefined> {
      const user = await findUserById(db, claims.userId);
      if (!user || user.session_version !== claims.sessionVersion) return undefined;
      const current = claimsOf(user);
      return { ...current, emailVerified: current.emailVerified && claims.emailVerified };
    },

    /**
     * Creates an account. Its session is unverified and a code is mailed to the address,
     * unless the address was confirmed with a sign-up code in the last hour.
     */
    async register(input: { email: string; password: string; name: string }, ip: string, planId?: string) {
      await deps.limiter.hit('account-lookup', { account: input.email, ip });
      await refuseIfSsoEnforced(input.email);
      await checkPassword(input.password, input.email);
      if (await findUserByEmail(db, input.email)) throw new ConflictError('An account with this email already exists');
      const planSlug = await planSlugFor(planId);
      const verified = await otpConfirmedSince(db, input.email, 'register', new Date(now().getTime() - REGISTER_CONFIRMATION_MS));
      const user = await createAccount(
        { email: input.email, name: input.name, passwordHash: await hashPassword(input.password), verified },
        planSlug,
      );
      if (!verified) await mailCode(user.email, 'verify-email', OTP_MAIL.register);
      return session(user);
    },

    async login(input: { email: string; password: string }, ip: string) {
      await deps.limiter.hit('login', { account: input.email, ip });
      await refuseIfSsoEnforced(input.email);
      const user = await findUserByEmail(db, input.email);
      const valid = user
        ? await verifyPassword(user.password_hash, input.password)
        : await verifyPassword(await timingDecoy, `${input.password}-x`);
      if (!user || !valid) throw new UnauthorizedError('Invalid email or password');
      return session(user);
    },

    /**
     * Signs in with a Google ID token (refused for an address whose domain enforces single
     * sign-on, as password sign-in is): the linked account, else the account with that email
     * (linked if its email was verified; taken over if not, as it was never shown to be
     * its owner's), else a new one, on `planId`'s trial (the free trial by default).
     */
    async google(idToken: string, planId?: string) {
      if (!deps.google) throw new AppError(503, 'not_configured', 'Google sign-in is not configured on this server');
      const planSlug = await planSlugFor(planId);
      const identity = await deps.google.verify(idToken);
      if (!identity) throw new UnauthorizedError('Google sign-in failed: the token is not valid');
      await refuseIfSsoEnforced(identity.email);
      const linked = await findUserByGoogleSubject(db, identity.subject);
      if (linked) return { ...(await session(linked)), isNewUser: false };
      const existing = await findUserByEmail(db, identity.email);
      if (existing?.email_verified_at) {
        return { ...(await session(await linkGoogleAccount(db, existing.id, identity.subject, now()))), isNewUser: false };
      }
      const google = { subject: identity.subject, name: identity.name, avatar: identity.picture };
      const takenOver = existing && (await takeOverWithGoogle(db, existing.id, google, now()));
      if (takenOver) return { ...(await session(takenOver)), isNewUser: true };
      const created = await createAccount(
        { email: identity.email, name: identity.name, passwordHash: null, verified: true, avatar: identity.picture, googleSubject: identity.subject },
        planSlug,
      );
      return { ...(await session(created)), isNewUser: true };
    },

    async isPlatformAdmin(userId: string): Promise<boolean> {
      const user = await findUserById(db, userId);
      return user !== undefined && user.email_verified_at !== null && deps.platformAdminEmails.includes(user.email);
    },

    /** A new account a team's identity provider vouches for: e-mail verified, no password, on the free trial. */
    /** A just-in-time account for an IdP identity, linked to it in the same transaction. */
    createSsoAccount: (person: { email: string; name: string; identity: { issuer: string; subject: string } }) =>
      createAccount({ email: person.email, name: person.name, passwordHash: null, verified: true, ssoIdentity: person.identity }, 'free-trial'),

    /** A fresh session for an account another service has just signed in (e.g. by invitation). */
    sessionFor: async (userId: string) => session(await requireUser(userId)),

    /** The ways to sign in besides a password that the console offers on every address: Google, when configured. */
    signInOptions: () => ({ google: deps.google?.browser ?? null }),

    async checkEmail(email: string, ip: string) {
      await deps.limiter.hit('account-lookup', { account: email, ip });
      return { exists: (await findUserByEmail(db, email)) !== undefined };
    },

    /** How the account can sign in: with a password (if it has one), Google (if linked), and its teams' identity providers it is linked to. */
    async signInMethods(userId: string) {
      const user = await requireUser(userId);
      const links = await listSsoLinksOfUser(db, userId);
      return {
        password: user.password_hash !== null,
        google: user.google_subject !== null,
        singleSignOn: links.map((link) => ({ teamId: link.team_id, teamName: link.team_name, issuer: link.issuer, linkedAt: link.created_at })),
      };
    },

    async profile(userId: string) {
      return { user: await publicUser(await requireUser(userId)) };
    },

    async updateProfile(userId: string, changes: { name?: string | undefined; avatar?: string | null | undefined }) {
      const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      const user = Object.keys(defined).length > 0 ? await updateUserProfile(db, userId, defined) : await findUserById(db, userId);
      if (!user) throw new UnauthorizedError('Session expired. Please login again.');
      return { user: await publicUser(user) };
    },

    async updateMetadata(userId: string, metadata: Record<string, unknown>) {
      const user = await db.transaction().execute((trx) => mergeUserMetadata(trx, userId, metadata));
      if (!user) throw new UnauthorizedError('Session expired. Please login again.');
      return { user: await publicUser(user) };
    },

    /** Changes the password (the current one is required); other sessions end, this one gets a new token. */
    async updatePassword(userId: string, input: { currentPassword: string; newPassword: string }) {
      const user = await requireUser(userId);
      if (!user.password_hash) {
        throw new ValidationError('currentPassword', 'currentPassword: this account signs in with Google; use forgot password to set one');
      }
      if (!(await verifyPassword(user.password_hash, input.currentPassword))) {
        throw new ValidationError('currentPassword', 'currentPassword is incorrect');
      }
      await checkPassword(input.newPassword, user.email, 'newPassword');
      if (input.newPassword === input.currentPassword) throw new ValidationError('newPassword', 'newPassword must differ from the current one');
      return session(await setUserPassword(db, user.id, await hashPassword(input.newPassword)));
    },

    /** Sends a code to confirm an email that is about to register. */
    async sendRegisterCode(email: string, ip: string) {
      await deps.limiter.hit('account-lookup', { account: email, ip });
      await refuseIfSsoEnforced(email);
      if (await findUserByEmail(db, email)) throw new ConflictError('An account with this email already exists');
      await sendCode(email, 'register', ip);
    },

    /** Sends a code to verify an account's email; says nothing about whether the account exists. */
    async sendVerificationCode(email: string, ip: string) {
      const user = await findUserByEmail(db, email);
      if (user) await sendCode(email, 'verify-email', ip);
      else await deps.limiter.hit('otp-send', { account: email, ip });
    },

    /**
     * Confirms an email with its code. With the session of the account that uses the
     * email, the account becomes verified and the answer carries a full session; without
     * it, the code is a sign-up code (so a new email may then register verified), and an
     * account is never verified by someone who is not signed in to it.
     */
    async verifyCode(email: string, code: string, ip: string, signedIn: SessionClaims | undefined) {
      const user = await findUserByEmail(db, email);
      const own = user !== undefined && signedIn?.userId === user.id;
      await useCode(email, own ? 'verify-email' : 'register', code, ip);
      if (!own) return { verified: true, user: null };
      return { verified: true, ...(await session((await markEmailVerified(db, user.id, now()))!)) };
    },

    /** Forgot password, step 1: a reset code to the account's email (the answer is the same for unknown emails). */
    async sendPasswordResetCode(email: string, ip: string) {
      await refuseIfSsoEnforced(email);
      const user = await findUserByEmail(db, email);
      if (user) await sendCode(email, 'reset-password', ip);
      else await deps.limiter.hit('otp-send', { account: email, ip });
    },

    /** Forgot password, step 2: the code and a new password; signs in (older sessions end). */
    async resetPassword(input: { email: string; otp: string; newPassword: string }, ip: string) {
      await refuseIfSsoEnforced(input.email);
      const user = await findUserByEmail(db, input.email);
      if (!user) {
        await deps.limiter.hit('otp-verify', { account: input.email, ip });
        throw new ValidationError('otp', 'otp is invalid or has expired. Please request a new code.');
      }
      await checkPassword(input.newPassword, user.email, 'newPassword');
      await useCode(user.email, 'reset-password', input.otp, ip);
      await setUserPassword(db, user.id, await hashPassword(input.newPassword));
      return session((await markEmailVerified(db, user.id, now()))!);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
