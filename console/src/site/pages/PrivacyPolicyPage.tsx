// The privacy policy (/privacy-policy).
import { COPYRIGHT_YEAR, PRODUCT_NAME, SUPPORT_EMAIL } from '../../shared/config.ts';

export function PrivacyPolicyPage() {
  return (
    <main className="legal">
      <section className="hero hero--compact">
        <div className="hero__inner hero__inner--centered">
          <p className="eyebrow eyebrow--light">Legal</p>
          <h1 className="hero__title">Privacy Policy</h1>
          <p className="hero__lead">Last updated 1 September {COPYRIGHT_YEAR}</p>
        </div>
      </section>
      <article className="section__inner section__inner--narrow legal__body">
        <p>
          This policy explains what personal data {PRODUCT_NAME} collects when you use our website, console and gateway, why we collect it,
          and the choices you have. {PRODUCT_NAME} is the controller for account and website data, and a processor for the usage data our
          customers send through the gateway.
        </p>

        <h2>1. Data we collect</h2>
        <ul>
          <li>
            <strong>Account data</strong>: your name, work e-mail address, password (stored only as a salted hash), team memberships and
            roles.
          </li>
          <li>
            <strong>Usage metadata</strong>: for each request routed through the gateway, the time, provider, model, token counts, cost,
            latency, status and the team, group and key it belongs to.
          </li>
          <li>
            <strong>Prompt content</strong>: prompts and completions pass through the gateway to your provider. We do not store their content
            unless your team turns on prompt logging, in which case it is kept for the retention period your team sets.
          </li>
          <li>
            <strong>Provider credentials</strong>: API keys you connect are encrypted with a key unique to your team and are never shown again
            in full, written to logs or shared.
          </li>
          <li>
            <strong>Billing data</strong>: plan, invoices and payment status. Card details are handled by our payment provider and never
            reach our servers.
          </li>
          <li>
            <strong>Contact requests</strong>: what you enter in our contact and early-access forms.
          </li>
        </ul>

        <h2>2. How we use it</h2>
        <p>
          To provide the service (metering, budgets, alerts, forecasts and advisor insights), to bill you, to secure accounts and detect abuse,
          to answer support and contact requests, and to improve the product using aggregated, de-identified statistics. We never sell
          personal data and never use your prompts or completions to train models.
        </p>

        <h2>3. Legal bases</h2>
        <p>
          We process account, usage and billing data to perform our contract with you, security data for our legitimate interest in keeping
          the service safe, and marketing e-mail only with your consent, which you can withdraw at any time.
        </p>

        <h2>4. Sharing</h2>
        <p>
          We share data only with the AI providers you route requests to, with sub-processors that host our infrastructure, send e-mail and
          take payments — each bound by a data processing agreement — and with authorities where the law requires it.
        </p>

        <h2>5. Retention</h2>
        <p>
          Account data is kept while your account is open and deleted within 30 days of closing it. Usage metadata is kept for your plan's
          look-back period plus 90 days for billing disputes; invoices are kept for as long as tax law requires.
        </p>

        <h2>6. Security</h2>
        <p>
          Data is encrypted in transit with TLS and at rest. Provider keys use envelope encryption (AES-256-GCM). Access inside {PRODUCT_NAME}{' '}
          is limited by role and recorded in an audit log.
        </p>

        <h2>7. Your rights</h2>
        <p>
          You can access, correct, export or delete your personal data, object to or restrict its processing, and complain to your data
          protection authority (in the UK, the Information Commissioner's Office). Most of this can be done from Settings; for anything else,
          e-mail us.
        </p>

        <h2>8. Cookies</h2>
        <p>
          The site stores your sign-in token in your browser's local storage so you stay signed in. We use no advertising or cross-site
          tracking cookies.
        </p>

        <h2>9. Contact</h2>
        <p>
          Questions about this policy or your data: <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>. We will tell you about material
          changes to this policy by e-mail or in the console before they take effect.
        </p>
      </article>
    </main>
  );
}
