import { useNavigate } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { WarningIcon } from '@/components/ui/icons';
import { CenteredCardPage } from '@/components/ui/page-shell';

export function ErrorPage() {
  const navigate = useNavigate();
  return (
    <CenteredCardPage
      title="Verification Failed"
      icon={<WarningIcon className="text-danger" />}
      description="We couldn't verify your account. Please contact server staff for assistance."
      footer={
        <Button size="lg" fullWidth onClick={() => navigate('/')}>
          Try Again
        </Button>
      }
    />
  );
}
