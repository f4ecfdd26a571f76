/**
 * The main navbar: About, Help Centre, Pricing Plans and Blog (a full page load), then
 * Signup/Login when logged out or the avatar menu when logged in. Under 1024 px the
 * links move into a menu behind a toggle.
 */
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useRouterState } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { logout } from '../../api/auth/mutations.ts';
import { type SessionUser, useSession } from '../../shared/session.ts';
import { Logo } from '../../shared/ui/Logo.tsx';

export const DEFAULT_AVATAR = '/media/default-avatar.svg';

function MainLinks({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <>
      <Link to="/about" className="navbar__link" activeProps={{ className: 'is-active' }} onClick={onNavigate}>
        About
      </Link>
      <Link to="/help-center" className="navbar__link" activeProps={{ className: 'is-active' }} onClick={onNavigate}>
        Help Centre
      </Link>
      <Link to="/pricing" className="navbar__link" activeProps={{ className: 'is-active' }} onClick={onNavigate}>
        Pricing Plans
      </Link>
      <a href="/blog/" className="navbar__link">
        Blog
      </a>
    </>
  );
}

function useLogout() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return () => {
    logout(queryClient);
    void navigate({ to: '/login' });
  };
}

function AvatarMenu({ user }: { user: SessionUser | null }) {
  const [open, setOpen] = useState(false);
  const menu = useRef<HTMLDivElement>(null);
  const signOut = useLogout();

  useEffect(() => {
    if (!open) return;
    const closeOutside = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node)) setOpen(false);
    };
    const closeOnEscape = (event: KeyboardEvent) => event.key === 'Escape' && setOpen(false);
    document.addEventListener('mousedown', closeOutside);
    document.addEventListener('keydown', closeOnEscape);
    return () => {
      document.removeEventListener('mousedown', closeOutside);
      document.removeEventListener('keydown', closeOnEscape);
    };
  }, [open]);

  return (
    <div className="avatar-menu" ref={menu}>
      <button type="button" className="avatar-menu__toggle" aria-haspopup="menu" aria-expanded={open} aria-label="Account menu" onClick={() => setOpen(!open)}>
        <img className="avatar" src={user?.avatar || DEFAULT_AVATAR} alt="" width={36} height={36} />
      </button>
      {open && (
        <div className="avatar-menu__panel" role="menu">
          <p className="avatar-menu__email">{user?.email}</p>
          <Link to="/dashboard" role="menuitem" className="avatar-menu__item" onClick={() => setOpen(false)}>
            Dashboard
          </Link>
          <Link to="/dashboard/settings" role="menuitem" className="avatar-menu__item" onClick={() => setOpen(false)}>
            Settings
          </Link>
          <Link to="/help-center" role="menuitem" className="avatar-menu__item" onClick={() => setOpen(false)}>
            Documentation &amp; Support
          </Link>
          <button type="button" role="menuitem" className="avatar-menu__item avatar-menu__item--danger" onClick={signOut}>
            Logout
          </button>
        </div>
      )}
    </div>
  );
}

function AuthLinks({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <>
      <Link to="/register" className="button button--primary button--small" onClick={onNavigate}>
        Signup
      </Link>
      <Link to="/login" className="button button--ghost button--small" onClick={onNavigate}>
        Login
      </Link>
    </>
  );
}

export function Navbar() {
  const session = useSession();
  const signedIn = session.token !== null;
  const [menuOpen, setMenuOpen] = useState(false);
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  const signOut = useLogout();
  const closeMenu = () => setMenuOpen(false);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the menu closes whenever the page changes.
  useEffect(() => setMenuOpen(false), [pathname]);

  return (
    <header className="navbar">
      <nav className="navbar__inner" aria-label="Main">
        <Link to="/" className="navbar__brand" aria-label="Spendgate home">
          <Logo />
        </Link>
        <div className="navbar__links">
          <MainLinks />
        </div>
        <div className="navbar__actions">{signedIn ? <AvatarMenu user={session.user} /> : <AuthLinks />}</div>
        <button
          type="button"
          className="navbar__toggle"
          aria-label={menuOpen ? 'Close menu' : 'Open menu'}
          aria-expanded={menuOpen}
          aria-controls="mobile-menu"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <span className={menuOpen ? 'burger burger--open' : 'burger'} aria-hidden="true" />
        </button>
      </nav>
      {menuOpen && (
        <div className="mobile-menu" id="mobile-menu">
          <MainLinks onNavigate={closeMenu} />
          <div className="mobile-menu__actions">
            {signedIn ? (
              <>
                <p className="mobile-menu__email">{session.user?.email}</p>
                <Link to="/dashboard" className="navbar__link" onClick={closeMenu}>
                  Dashboard
                </Link>
                <Link to="/dashboard/settings" className="navbar__link" onClick={closeMenu}>
                  Settings
                </Link>
                <Link to="/help-center" className="navbar__link" onClick={closeMenu}>
                  Documentation &amp; Support
                </Link>
                <button type="button" className="button button--ghost" onClick={signOut}>
                  Logout
                </button>
              </>
            ) : (
              <AuthLinks onNavigate={closeMenu} />
            )}
          </div>
        </div>
      )}
    </header>
  );
}
