import type { ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { POLICY_LAST_UPDATED } from '@shared/policy';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { PageShell } from '@/components/ui/page-shell';
import { useDocumentTitle } from '@/lib/use-document-title';

/** The frame of /privacy and /terms: title, last-updated date, the sections, and the way back. */
export function LegalPage({ title, children }: { title: string; children: ReactNode }) {
  const navigate = useNavigate();
  useDocumentTitle(title);
  const back = (
    <Button variant="secondary" onClick={() => navigate('/')}>
      Back to Verification
    </Button>
  );
  return (
    <PageShell width="lg">
      <Card>
        <CardHeader>
          <div>{back}</div>
          <CardTitle as="h1" className="mt-4">
            {title}
          </CardTitle>
          <p className="text-sm text-muted">Last updated {POLICY_LAST_UPDATED}</p>
        </CardHeader>
        <CardContent>
          <div className="flex flex-col gap-6 text-sm leading-relaxed [&_li]:mt-1 [&_ul]:list-disc [&_ul]:pl-5">{children}</div>
        </CardContent>
        <CardFooter>{back}</CardFooter>
      </Card>
    </PageShell>
  );
}

export function LegalSection({ heading, children }: { heading: string; children: ReactNode }) {
  return (
    <section className="flex flex-col gap-2">
      <h2 className="text-lg font-semibold">{heading}</h2>
      {children}
    </section>
  );
}
