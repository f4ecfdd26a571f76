// Layouts: the root (scroll to top on every route change, notifications) and the
// public pages' frame (navbar, page, footer).
import { Outlet, useRouterState } from '@tanstack/react-router';
import { useEffect } from 'react';
import { Footer } from './Footer.tsx';
import { Navbar } from './Navbar.tsx';
import { Toaster } from './Toaster.tsx';

export function RootLayout() {
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  // A block, not an arrow's value: Chromium's scrollTo returns a promise, which React
  // would take for the effect's cleanup and call ("TypeError: l is not a function").
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls on every change of page.
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);
  return (
    <>
      <Outlet />
      <Toaster />
    </>
  );
}

export function SiteLayout() {
  return (
    <div className="site">
      <Navbar />
      <div className="site__page">
        <Outlet />
      </div>
      <Footer />
    </div>
  );
}
