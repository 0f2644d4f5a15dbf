import { Link } from 'react-router-dom';
import { CenteredCardPage } from '@/components/ui/page-shell';

export function NotFoundPage() {
  return (
    <CenteredCardPage title="404 Page Not Found" documentTitle="Page Not Found">
      <p className="text-center text-sm text-muted">
        The page you are looking for does not exist. <Link to="/">Go to verification</Link>
      </p>
    </CenteredCardPage>
  );
}
