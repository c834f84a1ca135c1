import { useCallback, useEffect, useRef } from 'react';
import { useSlice } from '../../store/react';
import { Composer } from './Composer';
import { ConversationList } from './ConversationList';
import { ConversationSettings } from './ConversationSettings';
import { MessageList } from './MessageList';
import { AddEndpointHere, ModelPicker } from './ModelPicker';
import { Notice } from '../../components/Panel';
import { PartLegend } from '../../components/PartLegend';
import { AddModelPanel } from '../models/AddModelPanel';

/**
 * Chat: conversations, the open one's messages with a TTFT bar per answer, the composer, and
 * (beside them, never over them) the conversation's settings.
 */
export function ChatView() {
  const stop = useSlice('chat', (s) => s.stop);
  const error = useSlice('chat', (s) => s.error);
  const notice = useSlice('chat', (s) => s.notice);
  const isSettingsOpen = useSlice('chat', (s) => s.isSettingsOpen);
  const setSettingsOpen = useSlice('chat', (s) => s.setSettingsOpen);
  const isAddModelOpen = useSlice('ui', (s) => s.isAddModelOpen);
  const setAddModelOpen = useSlice('ui', (s) => s.setAddModelOpen);
  const addModelButton = useRef<HTMLButtonElement>(null);
  // Closing the panel gives the focus back to its button, so a keyboard user keeps their place.
  const closeAddModel = useCallback(() => {
    setAddModelOpen(false);
    addModelButton.current?.focus();
  }, [setAddModelOpen]);
  const isExpert = useSlice('ui', (s) => s.preferences.viewMode === 'expert');
  const hasAnswers = useSlice('chat', (s) => s.items.some((item) => item.kind === 'assistant'));
  const systemPrompt = useSlice('chat', (s) => s.settings.systemPrompt.trim());
  useEffect(() => {
    // Escape closes "Add a model" first (it lies over the chat); the settings sit beside the chat,
    // so with the panel closed Escape stops the answer.
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      if (isAddModelOpen) closeAddModel();
      else void stop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [stop, isAddModelOpen, closeAddModel]);
  return (
    <div className={isSettingsOpen ? 'chat-view with-settings' : 'chat-view'}>
      <ConversationList />
      <div className="chat-main">
        <div className="chat-toolbar">
          <ModelPicker />
          <button
            type="button"
            data-testid="open-add-model"
            ref={addModelButton}
            aria-expanded={isAddModelOpen}
            onClick={() => setAddModelOpen(!isAddModelOpen)}
          >
            Add a model
          </button>
          <button
            type="button"
            data-testid="conversation-settings"
            aria-expanded={isSettingsOpen}
            className={isSettingsOpen ? 'active' : ''}
            onClick={() => setSettingsOpen(!isSettingsOpen)}
          >
            Settings
          </button>
          {systemPrompt !== '' && (
            // Shown while the settings are closed too: a system prompt changes every answer.
            <button
              type="button"
              className="tag"
              data-testid="system-prompt-set"
              title={`System prompt: ${systemPrompt}`}
              onClick={() => setSettingsOpen(true)}
            >
              system prompt set
            </button>
          )}
          <AddEndpointHere />
          {isExpert && hasAnswers && <PartLegend isCompact />}
        </div>
        {isAddModelOpen && <AddModelPanel onClose={closeAddModel} />}
        {error && <Notice tone="error">{error}</Notice>}
        {notice && <Notice>{notice}</Notice>}
        <MessageList />
        <Composer />
      </div>
      {isSettingsOpen && <ConversationSettings />}
    </div>
  );
}
