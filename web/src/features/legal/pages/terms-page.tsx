import { Link } from 'react-router-dom';
import { LIABILITY_CAP_USD, LIMITED_ACCESS_CHANNELS, MINIMUM_AGE, MINIMUM_AGE_EU, TERMS_CHANGE_NOTICE_DAYS } from '@shared/policy';
import { LegalPage, LegalSection } from '../components/legal-page';

export function TermsPage() {
  return (
    <LegalPage title="Terms of Service">
      <LegalSection heading="1. Agreement">
        <p>
          These terms govern the verification service of the Discord server you are joining, run by that server&apos;s staff
          (&quot;we&quot;, &quot;us&quot;). By verifying you agree to these terms and to our <Link to="/privacy">Privacy Policy</Link>. If
          you do not agree, do not use the service.
        </p>
      </LegalSection>

      <LegalSection heading="2. Who may use it">
        <p>
          You must be at least {MINIMUM_AGE} years old, or {MINIMUM_AGE_EU} if you live in the European Union, and you must have a Discord
          account in good standing. You must also follow Discord&apos;s Terms of Service and Community Guidelines.
        </p>
      </LegalSection>

      <LegalSection heading="3. What the service does">
        <p>
          You give consent, sign in with Discord, agree to the server rules and are added to the server. Automated checks look for alternate
          accounts and VPN or proxy use. Depending on their outcome, you receive full access, Limited Access (only{' '}
          {LIMITED_ACCESS_CHANNELS.join(' and ')}, when a VPN or proxy is detected), or no access.
        </p>
      </LegalSection>

      <LegalSection heading="4. Your responsibilities">
        <ul>
          <li>Verify only your own Discord account, and do not use alternate accounts to evade bans, restrictions or limits.</li>
          <li>Do not try to get around verification, for example by faking or tampering with device or network information.</li>
          <li>Do not attack, overload, probe or automate the service.</li>
          <li>Follow the server rules you agree to during verification.</li>
        </ul>
      </LegalSection>

      <LegalSection heading="5. Moderation decisions">
        <p>
          Automated signals can be wrong. Server staff review flagged accounts and may confirm, override or reverse an outcome, and may
          remove access for breaking these terms or the server rules. If you think a decision is a mistake, contact the server staff.
        </p>
      </LegalSection>

      <LegalSection heading="6. Ending your use">
        <p>
          You may stop using the service at any time and delete your data with the <code>/privacy delete</code> slash command. We may
          suspend or end your access at any time for breaking these terms or the server rules.
        </p>
      </LegalSection>

      <LegalSection heading="7. No warranty">
        <p>
          The service is provided &quot;as is&quot; and &quot;as available&quot;, without warranties of any kind. We do not promise that it
          will always be available, error-free, or that its detection is accurate.
        </p>
      </LegalSection>

      <LegalSection heading="8. Limitation of liability">
        <p>
          To the fullest extent the law allows, we are not liable for indirect, incidental or consequential damages, and our total liability
          for any claim about the service is limited to ${LIABILITY_CAP_USD} USD.
        </p>
      </LegalSection>

      <LegalSection heading="9. Changes to these terms">
        <p>
          We will give at least {TERMS_CHANGE_NOTICE_DAYS} days&apos; notice of material changes, announced in the server, and update the
          date at the top. Using the service after a change takes effect means you accept the new terms.
        </p>
      </LegalSection>

      <LegalSection heading="10. Contact">
        <p>Questions about these terms go to the server staff on Discord.</p>
      </LegalSection>
    </LegalPage>
  );
}
