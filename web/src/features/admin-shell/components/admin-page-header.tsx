import { useId, useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { buttonVariants } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { useDocumentTitle } from '@/lib/use-document-title';
import { ArrowLeftIcon, MenuIcon } from './admin-icons';

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
  /**
   * On a phone, fold the actions behind a 'Menu' button (a page with many actions would
   * otherwise spend most of the first screen on rows of buttons); from 640 px they show inline.
   */
  foldActionsOnPhone?: boolean;
}

/** The top of every staff screen: back link, title, subtitle, actions. */
export function AdminPageHeader({
  title,
  subtitle,
  back = false,
  actions,
  documentTitle,
  foldActionsOnPhone = false,
}: AdminPageHeaderProps) {
  useDocumentTitle(documentTitle ?? title);
  const [menuOpen, setMenuOpen] = useState(false);
  const menuId = useId();
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
        <div className="flex items-start justify-between gap-3">
          <div className="flex min-w-0 flex-col gap-1">
            <h1 className="text-2xl font-bold leading-tight sm:text-3xl">{title}</h1>
            {subtitle ? <p className="text-sm text-muted sm:text-base">{subtitle}</p> : null}
          </div>
          {actions && foldActionsOnPhone ? (
            <button
              type="button"
              className={cn(buttonVariants({ variant: 'secondary', size: 'sm' }), 'shrink-0 sm:hidden')}
              aria-expanded={menuOpen}
              aria-controls={menuId}
              onClick={() => setMenuOpen((open) => !open)}
            >
              <MenuIcon className="size-4" />
              Menu
            </button>
          ) : null}
        </div>
        {actions ? (
          <div
            id={menuId}
            className={cn('gap-2 sm:flex sm:flex-wrap', !foldActionsOnPhone ? 'flex flex-wrap' : menuOpen ? 'grid grid-cols-2' : 'hidden')}
          >
            {actions}
          </div>
        ) : null}
      </div>
    </header>
  );
}
