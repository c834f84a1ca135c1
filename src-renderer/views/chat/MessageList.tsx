import { useEffect, useRef } from 'react';
import { activeAnswer } from '../../store/chat-send';
import { useSlice } from '../../store/react';
import { AnswerView } from './AnswerView';
import { UserMessage } from './UserMessage';
import { FirstRunCard } from '../models/FirstRunCard';

/** The open conversation's messages, kept scrolled to the newest while it grows. */
export function MessageList() {
  const items = useSlice('chat', (s) => s.items);
  const isBusy = useSlice('chat', (s) => activeAnswer(s) !== null);
  const hasOwnModel = useSlice('slots', (s) =>
    s.models.some((m) => m.source !== 'bundled' && m.status === 'ok'),
  );
  // The first-run card only leads to "Add a model": while that is open above, the card would be
  // squeezed under it (1024×700), so it steps aside.
  const isAddModelOpen = useSlice('ui', (s) => s.isAddModelOpen);
  const bottom = useRef<HTMLDivElement>(null);
  const last = items.at(-1);
  const lastLength = last?.kind === 'assistant' ? last.text.length + (last.timeline ? 1 : 0) : 0;
  useEffect(() => {
    // Braces matter: newer Chromium returns a Promise here, and an effect may only return a cleanup.
    void bottom.current?.scrollIntoView({ block: 'end' });
  }, [items.length, lastLength]);
  if (items.length === 0) {
    return (
      <div className="messages empty">
        {hasOwnModel
          ? 'Ask something. Every answer shows where the wait before its first word went.'
          : !isAddModelOpen && <FirstRunCard />}
      </div>
    );
  }
  return (
    <div className="messages">
      {items.map((item) =>
        item.kind === 'user' ? (
          <UserMessage key={item.key} item={item} isBusy={isBusy} />
        ) : (
          <AnswerView key={item.key} answer={item} isBusy={isBusy} />
        ),
      )}
      <div ref={bottom} />
    </div>
  );
}
