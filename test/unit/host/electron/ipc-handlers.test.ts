import { describe, expect, it } from 'vitest';
import {
  callChannel,
  methodsArgument,
  methodsFromArgv,
} from '../../../../src-main/host/electron/ipc-channels';
import { registerIpcHandlers, type IpcDeps } from '../../../../src-main/host/electron/ipc-handlers';
import { APP_ORIGIN } from '../../../../src-main/host/electron/security-rules';
import { METHOD_NAMES } from '../../../../src-main/service/contract/methods';
import type { ServiceApi } from '../../../../src-main/service/contract/service-api';
import { ServiceDouble } from '../http/service-double';
import { FakeIpcMain, frameEvent } from './fake-ipc-main';

const STATUS = {
  version: '0.1.0',
  isPersistent: true,
  historyState: 'on',
  persistenceReason: null,
  dataDir: '/data',
  modelsDir: '/data/models',
  modelFormats: [{ name: 'Hugging Face ONNX folder', detail: 'onnx/model.onnx' }],
  defaultModelId: null,
  executionProvider: 'cpu',
  host: 'electron' as const,
  logPath: '/data/logs/first-frame.log',
  recentProblems: [],
};

function setUp(overrides: Partial<IpcDeps> = {}) {
  const ipcMain = new FakeIpcMain();
  const service = new ServiceDouble({
    'app.status': () => STATUS,
    'timelines.reportClientTtft': () => ({ isRecorded: true }),
  });
  let isAccepting = true;
  const dispose = registerIpcHandlers({
    ipcMain,
    service,
    appOrigins: [APP_ORIGIN],
    isAccepting: () => isAccepting,
    ...overrides,
  });
  return { ipcMain, service, dispose, stopAccepting: () => (isAccepting = false) };
}

describe('channel allowlist', () => {
  it('hands the preload exactly the contract methods, derived from METHODS', () => {
    const argv = ['/electron', '--type=renderer', methodsArgument(METHOD_NAMES)];
    expect(methodsFromArgv(argv)).toEqual(METHOD_NAMES);
    expect(() => methodsFromArgv(['/electron'])).toThrow(/no --ff-methods=/);
    expect(methodsFromArgv(['--ff-methods=app.status,../x,fs.readFile(1)'])).toEqual(['app.status']);
  });

  it('registers one handler per method and nothing else; dispose removes them all', () => {
    const { ipcMain, dispose } = setUp();
    expect([...ipcMain.handlers.keys()].sort()).toEqual(METHOD_NAMES.map(callChannel).sort());
    dispose();
    expect(ipcMain.handlers.size).toBe(0);
  });

  it('refuses an unknown channel', async () => {
    const { ipcMain } = setUp();
    await expect(ipcMain.invoke('ff:call:fs.readFile', frameEvent(), {})).rejects.toThrow(/No handler/);
    await expect(ipcMain.invoke('ff:send', frameEvent(), {})).rejects.toThrow(/No handler/);
  });
});

describe('sender checks', () => {
  it('answers our own top frame', async () => {
    const { ipcMain, service } = setUp();
    await expect(ipcMain.invoke('ff:call:app.status', frameEvent(), {})).resolves.toEqual({
      ok: true,
      value: STATUS,
    });
    expect(service.calls).toEqual([{ method: 'app.status', input: {} }]);
  });

  it.each([
    ['a foreign page', frameEvent('https://evil.example/')],
    ['a file:// page', frameEvent('file:///work/main/out/renderer/index.html')],
    ['a subframe of our own origin', frameEvent(undefined, false)],
    ['a destroyed frame', { senderFrame: null }],
    [
      'a frame that throws when read',
      {
        get senderFrame(): never {
          throw new Error('Render frame was disposed');
        },
      },
    ],
  ])('refuses %s without calling the service', async (_label, event) => {
    const { ipcMain, service } = setUp();
    const result = await ipcMain.invoke('ff:call:app.status', event, {});
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(service.calls).toEqual([]);
  });
});

describe('validation and errors as values', () => {
  it('rejects bad input early, as a Result naming the field', async () => {
    const { ipcMain, service } = setUp();
    const result = await ipcMain.invoke('ff:call:timelines.reportClientTtft', frameEvent(), {
      requestId: 'r1',
      clientTtftMs: -5,
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect((result as { error: { message: string } }).error.message).toMatch(/clientTtftMs/);
    expect(service.calls).toEqual([]);
  });

  it('rejects a missing input and unknown keys on strict inputs', async () => {
    const { ipcMain } = setUp();
    await expect(ipcMain.invoke('ff:call:app.status', frameEvent())).resolves.toMatchObject({ ok: false });
    await expect(ipcMain.invoke('ff:call:app.status', frameEvent(), { evil: true })).resolves.toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
  });

  it('passes timelines.reportClientTtft through like every other method', async () => {
    const { ipcMain, service } = setUp();
    const input = { requestId: 'r1', clientTtftMs: 41.5 };
    await expect(ipcMain.invoke('ff:call:timelines.reportClientTtft', frameEvent(), input)).resolves.toEqual({
      ok: true,
      value: { isRecorded: true },
    });
    expect(service.calls).toEqual([{ method: 'timelines.reportClientTtft', input }]);
  });

  it('turns a throwing service into an internal error value', async () => {
    const throwing: ServiceApi = {
      call: () => Promise.reject(new Error('boom')),
      subscribe: () => () => {},
    };
    const { ipcMain } = setUp({ service: throwing });
    await expect(ipcMain.invoke('ff:call:app.status', frameEvent(), {})).resolves.toEqual({
      ok: false,
      error: { code: 'internal', message: 'app.status: boom' },
    });
  });

  it('answers unavailable once shutdown began', async () => {
    const { ipcMain, service, stopAccepting } = setUp();
    stopAccepting();
    await expect(ipcMain.invoke('ff:call:app.status', frameEvent(), {})).resolves.toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
    expect(service.calls).toEqual([]);
  });
});
