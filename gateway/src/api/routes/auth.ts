// /api/auth: accounts — register, sign in (password or Google), profile, password and
// email one-time codes. Routes that act on the signed-in account need a session; one whose
// email is not verified yet may only read and change the profile (and verify the email).
import { avatarProblem } from '@spendgate/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { ControlPlaneServices } from '../../control/index.ts';
import { useZod } from '../../zod-provider.ts';
import { answer, CodeVerified, EmailCheck, GoogleSession, Profile, Session, SignInMethods, SignInOptions } from '../answers.ts';
import { ok } from '../reply.ts';
import { Email, id, Name, Otp, Password, storedJson } from '../schemas.ts';
import { signedIn } from '../session.ts';

const RegisterBody = z.object({ email: Email, password: Password, name: Name });
const PlanQuery = z.object({ planId: id('plan').optional() });
const LoginBody = z.object({ email: Email, password: z.string().min(1, 'must not be empty').max(1024, 'is too long') });
const GoogleBody = z.object({ token: z.string().min(1, 'must not be empty').max(8192, 'is too long') });
const EmailBody = z.object({ email: Email });
const VerifyOtpBody = z.object({ email: Email, otp: Otp });
const ResetPasswordBody = z.object({ email: Email, otp: Otp, newPassword: Password });
const UpdatePasswordBody = z.object({ currentPassword: z.string().min(1, 'must not be empty').max(1024, 'is too long'), newPassword: Password });
const Avatar = z.string().superRefine((value, context) => {
  const problem = avatarProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});
const ProfileBody = z
  .object({ name: Name.optional(), avatar: Avatar.nullable().optional() })
  .refine((body) => body.name !== undefined || body.avatar !== undefined, { message: 'must change name or avatar' });
const MetadataBody = z.object({
  metadata: storedJson(z.record(z.string().max(100, 'keys must be at most 100 characters'), z.unknown(), { error: 'must be an object' })),
});

const CODE_SENT = 'If the address can receive one, a code is on its way. It expires in 10 minutes.';

export const authRoutes =
  (services: Pick<ControlPlaneServices, 'accounts'>): FastifyPluginAsync =>
  async (app) => {
    const api = useZod(app);
    const { accounts } = services;
    const open = { public: true };
    const unverified = { unverified: true };

    api.post('/register', { config: open, schema: { summary: 'Register (?planId starts that plan’s trial)', body: RegisterBody, querystring: PlanQuery, response: { 201: answer(Session) } } }, async (request, reply) =>
      reply.code(201).send(ok(await accounts.register(request.body, request.ip, request.query.planId), 'Registration successful')),
    );
    api.post('/login', { config: open, schema: { summary: 'Sign in with email and password', body: LoginBody, response: { 200: answer(Session) } } }, async (request) =>
      ok(await accounts.login(request.body, request.ip), 'Login successful'),
    );
    api.get('/sign-in-options', { config: open, schema: { summary: 'Ways to sign in besides a password (Google, when configured)', response: { 200: answer(SignInOptions) } } }, async () =>
      ok(accounts.signInOptions()),
    );
    api.post('/google', { config: open, schema: { summary: 'Sign in with a Google ID token (?planId starts a new account on that plan’s trial)', body: GoogleBody, querystring: PlanQuery, response: { 200: answer(GoogleSession) } } }, async (request) =>
      ok(await accounts.google(request.body.token, request.query.planId), 'Google sign-in successful'),
    );
    api.post('/check-email', { config: open, schema: { summary: 'Whether an account uses this email', body: EmailBody, response: { 200: answer(EmailCheck) } } }, async (request) =>
      ok(await accounts.checkEmail(request.body.email, request.ip)),
    );
    api.post('/send-email-otp', { config: open, schema: { summary: 'Send a code to verify an account’s email', body: EmailBody, response: { 200: answer(z.null()) } } }, async (request) => {
      await accounts.sendVerificationCode(request.body.email, request.ip);
      return ok(null, CODE_SENT);
    });
    api.post('/send-register-email-otp', { config: open, schema: { summary: 'Send a code to an email about to register', body: EmailBody, response: { 200: answer(z.null()) } } }, async (request) => {
      await accounts.sendRegisterCode(request.body.email, request.ip);
      return ok(null, 'A code is on its way. It expires in 10 minutes.');
    });
    api.post(
      '/verify-email-otp',
      { config: { ...open, optionalSession: true }, schema: { summary: 'Confirm an email with its code (with the account’s session: answers a full session)', body: VerifyOtpBody, response: { 200: answer(CodeVerified) } } },
      async (request) => ok(await accounts.verifyCode(request.body.email, request.body.otp, request.ip, request.user), 'Email verified'),
    );
    api.post('/forgot-password', { config: open, schema: { summary: 'Send a password reset code', body: EmailBody, response: { 200: answer(z.null()) } } }, async (request) => {
      await accounts.sendPasswordResetCode(request.body.email, request.ip);
      return ok(null, CODE_SENT);
    });
    api.post('/reset-password', { config: open, schema: { summary: 'Set a new password with the reset code', body: ResetPasswordBody, response: { 200: answer(Session) } } }, async (request) =>
      ok(await accounts.resetPassword(request.body, request.ip), 'Password reset'),
    );

    api.get('/sign-in-methods', { schema: { summary: 'How the signed-in account can sign in: password, Google, its teams’ identity providers', response: { 200: answer(SignInMethods) } } }, async (request) =>
      ok(await accounts.signInMethods(signedIn(request).userId)),
    );
    api.get('/profile', { config: unverified, schema: { summary: 'The signed-in account', response: { 200: answer(Profile) } } }, async (request) => ok(await accounts.profile(signedIn(request).userId)));
    api.patch('/update-profile', { config: unverified, schema: { summary: 'Change name or avatar (an https URL or a data:image/png|jpeg|gif|webp;base64 URL)', body: ProfileBody, response: { 200: answer(Profile) } } }, async (request) =>
      ok(await accounts.updateProfile(signedIn(request).userId, request.body), 'Profile updated'),
    );
    api.patch('/update-metadata', { schema: { summary: 'Merge keys into the account’s metadata (null removes one)', body: MetadataBody, response: { 200: answer(Profile) } } }, async (request) =>
      ok(await accounts.updateMetadata(signedIn(request).userId, request.body.metadata), 'Metadata updated'),
    );
    api.patch('/update-password', { schema: { summary: 'Change the password (current one required)', body: UpdatePasswordBody, response: { 200: answer(Session) } } }, async (request) =>
      ok(await accounts.updatePassword(signedIn(request).userId, request.body), 'Password updated'),
    );
  };
