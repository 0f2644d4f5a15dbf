import { useEffect } from 'react';

const SUFFIX = 'Gatekeeper';

/** Sets the browser tab title while the page is shown. (React 19's hoisted <title> can land behind index.html's own.) */
export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    if (title) document.title = `${title} · ${SUFFIX}`;
  }, [title]);
}
