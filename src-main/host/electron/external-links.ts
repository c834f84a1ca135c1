import { isSafeExternalUrl } from './security-rules';

/** What opening a link outside the app needs: the user's answer, the OS browser, a log. */
export interface ExternalLinkDeps {
  /** Asks the user whether to open `url` (a native dialog showing the whole URL); true = open. */
  confirm(url: string): Promise<boolean>;
  /** Hands the URL to the OS browser. */
  open(url: string): Promise<void>;
  log(message: string): void;
}

/**
 * Builds the app's one way out to the OS browser: only plain http(s) links, only after the user
 * confirms each one, one question at a time (a page asking again and again while a dialog is
 * up is refused, not queued). Anything else is logged and dropped.
 */
export function createExternalLinkOpener(deps: ExternalLinkDeps): (url: string) => Promise<boolean> {
  let isAsking = false;
  return async (url) => {
    if (!isSafeExternalUrl(url)) {
      deps.log(`refused to open ${url.slice(0, 200)} outside the app: only http(s) links are opened`);
      return false;
    }
    if (isAsking) {
      deps.log(`refused to open ${url.slice(0, 200)}: another link is waiting for the user's answer`);
      return false;
    }
    isAsking = true;
    try {
      if (!(await deps.confirm(url))) {
        deps.log(`the user chose not to open ${url.slice(0, 200)}`);
        return false;
      }
      await deps.open(url);
      return true;
    } catch (error) {
      deps.log(
        `could not open ${url.slice(0, 200)}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return false;
    } finally {
      isAsking = false;
    }
  };
}
