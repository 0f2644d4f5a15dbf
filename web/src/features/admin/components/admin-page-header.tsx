import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { buttonVariants } from '@/components/ui/button';
import { useDocumentTitle } from '@/lib/use-document-title';
import { ArrowLeftIcon } from './admin-icons';

export interface AdminPageHeaderProps {
  /** The page's h1. */
  title: string;
  subtitle?: ReactNode;
  /** Show the 'Back to Dashboard' link to /admin. */
  back?: boolean;
  /** Buttons on the right (wrap under the title on phones). */
  actions?: ReactNode;
  /** The browser tab title, when it should differ from the h1. */
  documentTitle?: string;
}

/** The top of every staff screen: back link, title, subtitle, actions. */
export function AdminPageHeader({ title, subtitle, back = false, actions, documentTitle }: AdminPageHeaderProps) {
  useDocumentTitle(documentTitle ?? title);
  return (
    <header className="mb-6 flex flex-col gap-4 sm:mb-8">
      {back ? (
        <div>
          <Link to="/admin" className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
            <ArrowLeftIcon className="size-4" />
            Back to Dashboard
          </Link>
        </div>
      ) : null}
      <div className="flex flex-col gap-4 lg:flex-row lg:items-end lg:justify-between">
        <div className="flex flex-col gap-1">
          <h1 className="text-2xl font-bold leading-tight sm:text-3xl">{title}</h1>
          {subtitle ? <p className="text-sm text-muted sm:text-base">{subtitle}</p> : null}
        </div>
        {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
      </div>
    </header>
  );
}
