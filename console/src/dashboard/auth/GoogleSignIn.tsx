/**
 * "Sign in with Google" on /login and /register, when the server has Google sign-in on
 * (GET /auth/sign-in-options): Google's own button, drawn by its client library; the ID
 * token it hands over is sent to POST /auth/google, whose session is stored like any
 * other sign-in, and `onSignedIn` moves on. Nothing shows while Google sign-in is off.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { googleSignInMutation } from '../../api/auth/mutations.ts';
import { signInOptionsQuery } from '../../api/auth/queries.ts';
import type { GoogleSessionAnswer } from '../../api/auth/types.ts';
import { FormError } from './AuthCard.tsx';
import { loadGoogleIdentity } from './google-identity.ts';

/** Google draws its button at most this wide. */
const MAX_BUTTON_WIDTH = 400;

export function GoogleSignIn({ purpose, planId, onSignedIn }: { purpose: 'signin' | 'signup'; planId?: string; onSignedIn: (answer: GoogleSessionAnswer) => void }) {
  const options = useQuery(signInOptionsQuery());
  const signIn = useMutation(googleSignInMutation(useQueryClient()));
  const buttonSlot = useRef<HTMLDivElement>(null);
  const [unavailable, setUnavailable] = useState(false);
  // Google's callback outlives renders: it reads the latest plan and follow-up from here.
  const latest = useRef({ planId, onSignedIn, mutate: signIn.mutate });
  latest.current = { planId, onSignedIn, mutate: signIn.mutate };
  const google = options.data?.google ?? null;

  useEffect(() => {
    if (google === null) return;
    let current = true;
    loadGoogleIdentity(google.scriptUrl).then(
      (identity) => {
        const slot = buttonSlot.current;
        if (!current || slot === null) return;
        identity.initialize({
          client_id: google.clientId,
          ux_mode: 'popup',
          context: purpose,
          auto_select: false,
          callback: ({ credential }) => {
            const { planId: plan, onSignedIn: next, mutate } = latest.current;
            mutate({ token: credential, planId: plan }, { onSuccess: next });
          },
        });
        slot.replaceChildren();
        identity.renderButton(slot, {
          type: 'standard',
          theme: 'outline',
          size: 'large',
          text: purpose === 'signup' ? 'signup_with' : 'signin_with',
          shape: 'rectangular',
          logo_alignment: 'center',
          width: Math.min(MAX_BUTTON_WIDTH, Math.max(200, slot.clientWidth)),
        });
      },
      () => current && setUnavailable(true),
    );
    return () => {
      current = false;
    };
  }, [google, purpose]);

  if (google === null) return null;
  return (
    <div className="auth__alternative">
      <div ref={buttonSlot} className="auth__google" />
      {unavailable && <p className="form-field__help">Google sign-in could not be loaded. Use your e-mail and password, or try again later.</p>}
      {signIn.isPending && (
        <p className="form-field__help" role="status">
          Signing you in with Google…
        </p>
      )}
      <FormError error={signIn.error} />
      <p className="auth__divider">or</p>
    </div>
  );
}
