// Single sign-on: a team's identity provider as admins see it (never its client secret), and the sign-in steps' answers.
import type { SessionAnswer } from '../auth/types.ts';

export interface SsoMapping {
  idpGroup: string;
  teamRole: 'ADMIN' | 'MEMBER';
  groupId: string | null;
  groupRole: 'ADMIN' | 'MAINTAINER' | 'OBSERVER' | null;
}

export interface SsoDomainVerification {
  domain: string;
  record: { type: 'TXT'; name: string; value: string };
  verifiedAt: string | null;
}

export interface SsoProvider {
  teamId: string;
  issuer: string;
  clientId: string;
  clientSecretSet: true;
  domains: string[];
  /** Each domain's ownership proof: the TXT record to publish, and when it was found (null: not verified). */
  domainVerification: SsoDomainVerification[];
  enforced: boolean;
  groupsClaim: string;
  defaultTeamRole: 'ADMIN' | 'MEMBER' | null;
  mappings: SsoMapping[];
  /** What to register with the IdP as the client's redirect URI. */
  redirectUri: string;
  updatedAt: string;
}

export interface SsoSettings {
  provider: SsoProvider | null;
}

export interface SsoSettingsInput {
  teamId: string;
  issuer: string;
  clientId: string;
  /** Left out, the stored secret stays. */
  clientSecret?: string;
  domains: string[];
  enforced: boolean;
  groupsClaim: string;
  defaultTeamRole: 'ADMIN' | 'MEMBER' | null;
  mappings: SsoMapping[];
}

/** The identities a member's account is linked to at the team's identity provider. */
export interface SsoIdentities {
  userId: string;
  identities: { issuer: string; subject: string; linkedAt: string }[];
}

export interface SsoStart {
  /** The identity provider's sign-in page. */
  url: string;
}

export type SsoSession = SessionAnswer;
