// Auth payloads and answers (spec §7): register, login, one-time codes, passwords.
import type { SessionUser } from '../../shared/session.ts';

/** An account as the API answers it. */
export interface PublicUser extends SessionUser {
  name: string;
  avatar: string | null;
  emailVerified: boolean;
}

export interface SessionAnswer {
  token: string;
  /** Until the e-mail is verified the token opens only the profile and /verify. */
  user: PublicUser;
}

/** A Google sign-in's session; `isNewUser` when it made the account. */
export interface GoogleSessionAnswer extends SessionAnswer {
  isNewUser: boolean;
}

/** How the signed-in account can sign in. */
export interface SignInMethods {
  password: boolean;
  google: boolean;
  /** Its teams' identity providers it is linked to. */
  singleSignOn: { teamId: string; teamName: string; issuer: string; linkedAt: string }[];
}

/** Whether an address already has an account. */
export interface EmailCheck {
  exists: boolean;
}

/** Ways to sign in besides a password: Google Identity Services' library and our OAuth client id, or null when Google sign-in is off. */
export interface SignInOptions {
  google: { clientId: string; scriptUrl: string } | null;
}

/** A code checked with the account's session answers a full session; a sign-up code, none (`verified` is always true). */
export type OtpAnswer = { verified: boolean; user: null } | ({ verified: boolean } & SessionAnswer);

export interface RegisterInput {
  name: string;
  email: string;
  password: string;
  planId?: string;
}

export interface LoginInput {
  email: string;
  password: string;
}

export interface OtpCheck {
  email: string;
  otp: string;
}

/** Forgot password, last step: the e-mailed code stands for the old password. */
export interface PasswordReset {
  email: string;
  otp: string;
  newPassword: string;
}

/** A signed-in user changing the password. */
export interface PasswordChange {
  currentPassword: string;
  newPassword: string;
}

/** The signed-in account (GET /auth/profile, PATCH /auth/update-profile). */
export interface ProfileAnswer {
  user: PublicUser;
}

/** A name, or an avatar: an https URL, a base64 data URL of a PNG, JPEG, GIF or WebP image, or null to remove it. */
export interface ProfileChanges {
  name?: string;
  avatar?: string | null;
}
