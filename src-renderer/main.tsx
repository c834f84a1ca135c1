import './zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { pickBridge } from './bridge/pick-bridge';
import type { FirstFrameApi } from '../src-main/service/contract/window-api';
import { createStores, loadInitialState } from './store/create-stores';
import { StoresProvider } from './store/react';
import { followConversationInUrl } from './store/conversation-url';
import { App } from './views/App';
import './styles/base.css';
import './styles/layout.css';
import './styles/chat.css';
import './styles/markdown.css';
import './styles/charts.css';
import './styles/slots.css';
import './styles/compare.css';
import './styles/remote.css';

// One bridge for the page's life: IPC inside Electron, HTTP + server-sent events in a browser.
const bridge = pickBridge(window as unknown as { firstFrame?: FirstFrameApi });
const stores = createStores(bridge);
void loadInitialState(stores);
followConversationInUrl(stores.chat, window);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoresProvider stores={stores}>
      <App />
    </StoresProvider>
  </StrictMode>,
);
