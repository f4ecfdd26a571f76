// The Spendgate mark and word mark.
import { PRODUCT_NAME } from '../config.ts';

export function LogoMark({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" className="logo__mark">
      <defs>
        <linearGradient id="sg-logo" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#8b5cf6" />
          <stop offset="1" stopColor="#4f46e5" />
        </linearGradient>
      </defs>
      <rect width="32" height="32" rx="8" fill="url(#sg-logo)" />
      <path d="M9 20.5c1.6 1.7 4 2.5 6.6 2.5 3.6 0 6.1-1.7 6.1-4.4 0-5.6-11.4-3.4-11.4-8 0-1.6 1.6-2.8 4.4-2.8 2 0 3.8.6 5.1 1.7" fill="none" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" />
      <circle cx="23.5" cy="9" r="2" fill="#c4b5fd" />
    </svg>
  );
}

export function Logo({ inverted = false }: { inverted?: boolean }) {
  return (
    <span className={inverted ? 'logo logo--inverted' : 'logo'}>
      <LogoMark />
      <span className="logo__text">{PRODUCT_NAME}</span>
    </span>
  );
}
