import { Link } from 'react-router-dom';
import { LIMITED_ACCESS_CHANNELS, MINIMUM_AGE, MINIMUM_AGE_EU, PRIVACY_REQUEST_RESPONSE_DAYS } from '@shared/policy';
import { useRetentionDays } from '@/features/config/api';
import { LegalPage, LegalSection } from '../components/legal-page';

export function PrivacyPage() {
  const retentionDays = useRetentionDays();
  return (
    <LegalPage title="Privacy Policy">
      <LegalSection heading="1. Who we are">
        <p>
          This verification service is run by the staff of the Discord server you are joining (&quot;we&quot;, &quot;us&quot;). It checks
          new members before they get access, to protect the community from alternate accounts, raids and abuse through VPNs or proxies. The
          service is hosted by the server&apos;s staff; it is not operated by Discord.
        </p>
      </LegalSection>

      <LegalSection heading="2. What we collect">
        <p>When you verify, we store:</p>
        <ul>
          <li>
            <strong>Your Discord account details:</strong> your chat username, your user ID and your avatar URL, which Discord shares with
            us when you sign in.
          </li>
          <li>
            <strong>A hash of your IP address:</strong> a keyed (salted) SHA-256 hash of your IP address and of the network range it belongs
            to. We never store your IP address itself.
          </li>
          <li>
            <strong>A VPN flag:</strong> whether your connection appeared to come from a VPN, proxy or hosting network, and the
            provider&apos;s name when known.
          </li>
          <li>
            <strong>Timestamps:</strong> when you verified and when you agreed to the server rules.
          </li>
          <li>
            <strong>A device fingerprint hash:</strong> a hash computed in your browser from technical characteristics of your browser and
            device (how it draws graphics and processes audio, screen size, installed fonts, time zone, language, platform and hardware),
            together with hashes of those characteristics so that staff can see which of them match another account, and whether they look
            like an unmodified phone&apos;s (a yes or no: such phones look alike, so a match between them counts for less). It does not
            contain your name or any content from your device.
          </li>
          <li>
            <strong>A browser token hash:</strong> when you consent, the verification page stores a random browser token in your browser (a
            cookie and local storage) so that a later verification from the same browser can be recognised. We keep only a keyed hash of the
            token, with your verification record, and it is deleted with that record.
          </li>
          <li>
            <strong>Admin notes:</strong> notes that staff write about your record.
          </li>
          <li>
            <strong>Appeals:</strong> if you ask staff to review a denial or Limited Access, the message you write, when you sent it, and
            staff&apos;s decision (with their reason when they reject it). Appeals are deleted together with your record.
          </li>
          <li>
            <strong>Audit logs:</strong> a record of every action staff or the system take on your record (who did what, and when).
          </li>
        </ul>
        <p>
          We do not collect your email address, your password, your messages or your friends list. Discord sign-in asks only for permission
          to read your basic profile and to add you to the server. The access token Discord gives us for this is revoked as soon as you have
          been added to the server (or found there already). The appeal sign-in reads only your identity: it asks for permission to read
          your basic profile and nothing else, and its token is revoked as soon as we have read who you are.
        </p>
      </LegalSection>

      <LegalSection heading="3. Why we use it">
        <ul>
          <li>To verify you and add you to the server with the right role.</li>
          <li>
            To detect alternate accounts, by comparing your IP hash, device fingerprint hash and browser token hash with those of other
            verified accounts.
          </li>
          <li>To detect raids and VPN or proxy use.</li>
          <li>To let staff review records, answer your appeals, correct mistakes and keep a log of what they did.</li>
        </ul>
        <p>
          We use your data on the basis of the consent you give on the verification page and of our legitimate interest in keeping the
          community safe. We do not sell your data, use it for advertising or share it with anyone other than the services named below.
        </p>
      </LegalSection>

      <LegalSection heading="4. Services we share data with">
        <ul>
          <li>
            <strong>Discord</strong>, to sign you in, add you to the server and assign your role. Discord handles your data under its own
            privacy policy.
          </li>
          <li>
            <strong>A third-party proxy-check service:</strong> when you verify, your IP address is sent to a proxy-detection service, which
            tells us whether the address belongs to a VPN, proxy or hosting provider. The address is used only for this check.
          </li>
        </ul>
      </LegalSection>

      <LegalSection heading="5. Limited Access">
        <p>
          If a VPN or proxy is detected, you receive Limited Access, which covers only the {LIMITED_ACCESS_CHANNELS.join(' and ')} channels.
          For Limited Access we keep only your Discord ID and username (with the VPN flag and the timestamps needed to show that outcome).
          To get full access, disconnect your VPN and verify again.
        </p>
      </LegalSection>

      <LegalSection heading="6. How long we keep it">
        <p>
          Your verification data is deleted automatically {retentionDays} days after it was collected. Audit log entries keep no personal
          data beyond your Discord ID.
        </p>
      </LegalSection>

      <LegalSection heading="7. Your rights">
        <ul>
          <li>
            <strong>See your data:</strong> use the <code>/privacy show</code> slash command in the Discord server.
          </li>
          <li>
            <strong>Delete your data:</strong> use the <code>/privacy delete</code> slash command. Your verification record is removed; you
            will need to verify again to regain access.
          </li>
          <li>
            For any other request (access, correction, deletion, objection, or withdrawing your consent), contact the server staff. We
            answer privacy requests within {PRIVACY_REQUEST_RESPONSE_DAYS} days.
          </li>
        </ul>
        <p>You may also complain to the data protection authority where you live.</p>
      </LegalSection>

      <LegalSection heading="8. Age">
        <p>
          You must be at least {MINIMUM_AGE} years old to use this service, or {MINIMUM_AGE_EU} if you live in the European Union. If we
          learn that a user is younger, we delete their data.
        </p>
      </LegalSection>

      <LegalSection heading="9. Security and cookies">
        <p>
          IP addresses are hashed with a secret key kept outside the database. Only authenticated staff can see verification records, and
          every staff action is logged. We use one session cookie, needed for the verification steps and for staff sign-in, and, once you
          consent, the browser token described above (a cookie and a local storage entry that last a year, used only for alt detection on
          this site); no tracking or advertising cookies.
        </p>
      </LegalSection>

      <LegalSection heading="10. Changes and contact">
        <p>
          When this policy changes we update the date at the top and announce material changes in the server. For questions or requests,
          contact the server staff on Discord. See also our <Link to="/terms">Terms of Service</Link>.
        </p>
      </LegalSection>
    </LegalPage>
  );
}
