import { memo, useMemo, useRef, useState } from 'react';
import type { ComponentPropsWithoutRef, ReactNode } from 'react';
import ReactMarkdown from 'react-markdown';
import type { Components, Options } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { CopyButton } from '../CopyButton';
import { remarkHtmlAsText } from './html-as-text';
import { useSettledText } from './use-settled-text';

const REMARK_PLUGINS = [remarkGfm, remarkHtmlAsText];
// Highlights only fenced code that names its language (guessing would colour prose); classes
// only, styled by chat.css, so nothing needs an inline style the CSP would block.
const REHYPE_PLUGINS: Options['rehypePlugins'] = [[rehypeHighlight, { detect: false }]];

/** A link in a message: opening it leaves the app, so it asks in the page first. */
function LinkOut(props: ComponentPropsWithoutRef<'a'> & { onOpen(href: string): void }) {
  const { href, children, onOpen } = props;
  return (
    <a
      href={href}
      className="message-link"
      rel="noopener noreferrer"
      onClick={(event) => {
        event.preventDefault();
        if (href) onOpen(href);
      }}
    >
      {children}
    </a>
  );
}

/** A fenced code block with its language and a copy button. */
function CodeBlock(props: ComponentPropsWithoutRef<'pre'>) {
  const ref = useRef<HTMLPreElement>(null);
  const code = (props.children as { props?: { className?: string } } | undefined)?.props;
  const language = /language-([\w+-]+)/.exec(code?.className ?? '')?.[1] ?? null;
  return (
    <div className="code-block" data-testid="code-block" data-language={language ?? ''}>
      <div className="code-head">
        <span>{language ?? 'code'}</span>
        <CopyButton testId="code-copy" text={() => ref.current?.textContent ?? ''} label="Copy code" />
      </div>
      <pre ref={ref}>{props.children}</pre>
    </div>
  );
}

/** Images would load from wherever the model pointed (the CSP blocks them anyway): show the link. */
function ImageAsLink(props: ComponentPropsWithoutRef<'img'> & { onOpen(href: string): void }) {
  return (
    <LinkOut
      href={props.src as string | undefined}
      onOpen={props.onOpen}
    >{`[image: ${props.alt || props.src}]`}</LinkOut>
  );
}

/** The in-page question before a link leaves the app. */
function LinkConfirm(props: { href: string; onClose(): void }) {
  return (
    <div className="link-confirm" role="alertdialog" aria-label="Open link" data-testid="link-confirm">
      <span>
        Open <code>{props.href}</code> in your browser?
      </span>
      <button
        type="button"
        className="primary small"
        data-testid="link-open"
        onClick={() => {
          window.open(props.href, '_blank', 'noopener,noreferrer');
          props.onClose();
        }}
      >
        Open
      </button>
      <button type="button" className="small" onClick={props.onClose}>
        Cancel
      </button>
    </div>
  );
}

/**
 * A message as GitHub-flavoured Markdown: tables, task lists, strikethrough, fenced code with
 * highlighting and a copy button. Raw HTML shows as text; links ask before leaving the app.
 */
export const Markdown = memo(function Markdown(props: { text: string; isStreaming?: boolean }) {
  const [pendingHref, setPendingHref] = useState<string | null>(null);
  const text = useSettledText(props.text, props.isStreaming === true);
  // Stable across renders: new component functions would remount every code block per chunk.
  const components = useMemo<Components>(
    () => ({
      a: (p) => <LinkOut {...p} onOpen={setPendingHref} />,
      img: (p) => <ImageAsLink {...p} onOpen={setPendingHref} />,
      pre: CodeBlock,
      table: (p) => (
        <div className="table-scroll">
          <table>{p.children as ReactNode}</table>
        </div>
      ),
    }),
    [],
  );
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={REMARK_PLUGINS} rehypePlugins={REHYPE_PLUGINS} components={components}>
        {text}
      </ReactMarkdown>
      {pendingHref && <LinkConfirm href={pendingHref} onClose={() => setPendingHref(null)} />}
    </div>
  );
});
