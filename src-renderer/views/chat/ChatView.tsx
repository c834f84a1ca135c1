import { useEffect } from 'react';
import { useSlice } from '../../store';
import { Composer } from './Composer';
import { ConversationList } from './ConversationList';
import { MessageList } from './MessageList';
import { ModelPicker } from './ModelPicker';
import { SamplingPanel } from './SamplingPanel';
import { Notice, PartLegend } from '../../components';

/** Chat: conversations, the open one's messages with a TTFT bar per answer, and the composer. */
export function ChatView() {
  const stop = useSlice('chat', (s) => s.stop);
  const error = useSlice('chat', (s) => s.error);
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') void stop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [stop]);
  return (
    <div className="chat-view">
      <ConversationList />
      <div className="chat-main">
        <div className="chat-toolbar">
          <ModelPicker />
          <SamplingPanel />
          <PartLegend isCompact />
        </div>
        {error && <Notice tone="error">{error}</Notice>}
        <MessageList />
        <Composer />
      </div>
    </div>
  );
}
