/**
 * Google Identity Services' client library (the `google.accounts.id` part the console
 * uses: initialize and renderButton), loaded once per page from the URL the server names.
 * Its API as Google's JavaScript reference describes it; only the fields used here.
 */

export interface CredentialResponse {
  /** The Google ID token (a JWT) for the account the person chose. */
  credential: string;
  /** How the person chose it, e.g. 'btn'. */
  select_by?: string;
}

export interface GoogleIdentity {
  initialize(config: {
    client_id: string;
    callback: (response: CredentialResponse) => void;
    ux_mode?: 'popup' | 'redirect';
    context?: 'signin' | 'signup' | 'use';
    auto_select?: boolean;
  }): void;
  renderButton(
    parent: HTMLElement,
    options: {
      type: 'standard' | 'icon';
      theme?: 'outline' | 'filled_blue' | 'filled_black';
      size?: 'large' | 'medium' | 'small';
      text?: 'signin_with' | 'signup_with' | 'continue_with' | 'signin';
      shape?: 'rectangular' | 'pill' | 'circle' | 'square';
      logo_alignment?: 'left' | 'center';
      /** Pixels, at most 400. */
      width?: number;
    },
  ): void;
}

declare global {
  interface Window {
    google?: { accounts?: { id?: GoogleIdentity } };
  }
}

const loads = new Map<string, Promise<GoogleIdentity>>();

/** The library at `scriptUrl`, added to the page on first use; rejects when it cannot be loaded. */
export function loadGoogleIdentity(scriptUrl: string): Promise<GoogleIdentity> {
  let load = loads.get(scriptUrl);
  if (load === undefined) {
    load = new Promise<GoogleIdentity>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = scriptUrl;
      script.async = true;
      script.addEventListener('load', () => {
        const identity = window.google?.accounts?.id;
        if (identity) resolve(identity);
        else reject(new Error('Google sign-in did not start'));
      });
      script.addEventListener('error', () => reject(new Error('Google sign-in could not be loaded')));
      document.head.append(script);
    });
    // A failed load may be tried again on the next visit to the screen.
    load.catch(() => loads.delete(scriptUrl));
    loads.set(scriptUrl, load);
  }
  return load;
}
