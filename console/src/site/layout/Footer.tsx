// The site footer: brand, About, Contact Us, Pricing Plans, Privacy Policy, copyright.
import { Link } from '@tanstack/react-router';
import { COPYRIGHT_YEAR, PRODUCT_NAME, SUPPORT_EMAIL } from '../../shared/config.ts';
import { Logo } from '../../shared/ui/Logo.tsx';

export function FooterLinks() {
  return (
    <nav className="footer__links" aria-label="Footer">
      <Link to="/about">About</Link>
      <Link to="/help-center">Contact Us</Link>
      <Link to="/pricing">Pricing Plans</Link>
      <Link to="/privacy-policy">Privacy Policy</Link>
    </nav>
  );
}

export function Copyright() {
  return (
    <p className="footer__copyright">
      © {COPYRIGHT_YEAR} {PRODUCT_NAME}. All rights reserved.
    </p>
  );
}

export function Footer() {
  return (
    <footer className="footer">
      <div className="footer__inner">
        <div className="footer__brand">
          <Link to="/" aria-label="Spendgate home">
            <Logo inverted />
          </Link>
          <p className="footer__tagline">Work at the Frontier of AI — with control.</p>
          <a className="footer__email" href={`mailto:${SUPPORT_EMAIL}`}>
            {SUPPORT_EMAIL}
          </a>
        </div>
        <FooterLinks />
      </div>
      <div className="footer__bottom">
        <Copyright />
      </div>
    </footer>
  );
}
