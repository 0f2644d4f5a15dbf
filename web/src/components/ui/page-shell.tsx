import type { ReactNode } from 'react';
import { cn } from '@/lib/cn';
import { useDocumentTitle } from '@/lib/use-document-title';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from './card';

export type PageWidth = 'sm' | 'md' | 'lg' | 'xl' | 'full';

const widthClasses: Record<PageWidth, string> = {
  sm: 'max-w-md',
  md: 'max-w-xl',
  lg: 'max-w-3xl',
  xl: 'max-w-6xl',
  full: 'max-w-none',
};

export interface PageShellProps {
  children: ReactNode;
  /** 'md' for one visitor card; 'xl' for the dashboard. */
  width?: PageWidth;
  /** Centre the content vertically too (visitor steps). */
  centered?: boolean;
  className?: string;
}

/** The page's <main>: padding that stays readable at 360 px, and a max width. */
export function PageShell({ children, width = 'md', centered = false, className }: PageShellProps) {
  return (
    <main
      id="main"
      className={cn(
        'mx-auto flex w-full flex-1 flex-col px-4 py-6 sm:px-6 sm:py-10',
        widthClasses[width],
        centered && 'justify-center',
        className,
      )}
    >
      {children}
    </main>
  );
}

export interface CenteredCardPageProps {
  /** The page's h1, inside the card. */
  title: ReactNode;
  /** The browser tab title (defaults to `title` when it is a string). */
  documentTitle?: string;
  /** A decorative icon above the title. */
  icon?: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  /** Actions under the content (stacked on phones, in a row from 640 px). */
  footer?: ReactNode;
  width?: PageWidth;
  /** Centre the header text (default true). */
  centerHeader?: boolean;
}

/** One centred card per visitor step (DESIGN §11). */
export function CenteredCardPage({
  title,
  documentTitle,
  icon,
  description,
  children,
  footer,
  width = 'md',
  centerHeader = true,
}: CenteredCardPageProps) {
  useDocumentTitle(documentTitle ?? (typeof title === 'string' ? title : undefined));
  return (
    <PageShell width={width} centered>
      <Card>
        <CardHeader className={cn(centerHeader && 'items-center text-center')}>
          {icon ? <div className="mb-2 text-5xl">{icon}</div> : null}
          <CardTitle as="h1">{title}</CardTitle>
          {description ? <CardDescription className="text-base">{description}</CardDescription> : null}
        </CardHeader>
        {children ? <CardContent>{children}</CardContent> : <div className="h-6 sm:h-8" />}
        {footer ? <CardFooter>{footer}</CardFooter> : null}
      </Card>
    </PageShell>
  );
}
