import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HubDownload } from '../../../src-main/service/contract/hub-schemas';
import type { MethodInput, MethodName, MethodOutput } from '../../../src-main/service/contract/methods';
import type { Core } from '../../../src-main/service/core-options';
import { createTestCore } from '../../support/core';
import { bundledGguf } from '../../support/gguf-fixtures';
import { FIXTURE_COMMIT, startHubServer } from '../../support/hub-server';
import type { HubServer } from '../../support/hub-server';
import { TEST_MODEL_ID, TEST_MODELS_DIR } from '../../support/runtime';

// Getting a model from a hub laid out as huggingface.co (a server on loopback, never the
// internet) and deleting one from disk, through the service as every client calls it.

const GGUF_REPO = 'someone/Austen-Mini-GGUF';
const BYTES_REPO = 'someone/Bytes-GGUF';
const ONNX_REPO = 'someone/Austen-Mini-ONNX';
const ONNX_FOLDER_FILES = [
  'config.json',
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
];
const BIG = randomBytes(512 * 1024);

describe('getting a model from the hub and deleting one', () => {
  let hub: HubServer;
  let core: Core;
  let dataDir: string;
  let modelsDir: string;
  const call = async <M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>> => {
    const result = await core.service.call(method, input);
    if (!result.ok) throw new Error(`${method}: ${result.error.code} ${result.error.message}`);
    return result.value;
  };
  const refusal = async <M extends MethodName>(method: M, input: MethodInput<M>) => {
    const result = await core.service.call(method, input);
    return result.ok ? null : result.error;
  };
  const finished = async (downloadId: string): Promise<HubDownload> => {
    await vi.waitFor(
      async () => {
        const d = (await call('hub.downloads', {})).find((x) => x.downloadId === downloadId);
        expect(d?.state).toMatch(/done|failed|cancelled/);
      },
      { timeout: 20_000, interval: 50 },
    );
    return (await call('hub.downloads', {})).find((x) => x.downloadId === downloadId)!;
  };
  const download = async (repo: string, filePath: string) =>
    call('hub.download', { repo, revision: FIXTURE_COMMIT, filePath });

  beforeAll(async () => {
    hub = await startHubServer(
      {
        [GGUF_REPO]: [
          { path: 'Austen-Mini-F16.gguf', bytes: readFileSync(bundledGguf('f16')) },
          { path: 'split/Austen-Mini-Q8_0-00001-of-00002.gguf', bytes: randomBytes(1000) },
          { path: 'split/Austen-Mini-Q8_0-00002-of-00002.gguf', bytes: randomBytes(500) },
          { path: 'mmproj-Austen-Mini-F16.gguf', bytes: randomBytes(10) },
        ],
        [ONNX_REPO]: [
          ...ONNX_FOLDER_FILES.map((f) => ({ path: f, bytes: testModelFile(f), isInGit: true })),
          { path: 'onnx/model_q4.onnx', bytes: testModelFile('onnx/model_q4.onnx') },
          { path: 'onnx/model_q8.onnx', bytes: testModelFile('onnx/model_q8.onnx') },
        ],
        [BYTES_REPO]: [
          { path: 'Resumed-Q4_K_M.gguf', bytes: BIG },
          { path: 'Damaged-Q4_0.gguf', bytes: BIG, listedSha256: 'f'.repeat(64) },
          { path: 'Stalled-IQ3_XXS.gguf', bytes: BIG },
          { path: 'Restarted-Q5_K_M.gguf', bytes: BIG },
          { path: 'Huge-F32.gguf', bytes: BIG, listedNumBytes: 2 ** 53 - 1 },
        ],
      },
      ['someone/Private-GGUF'],
      [BYTES_REPO],
    );
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ff-hub-'));
    modelsDir = path.join(dataDir, 'models');
    core = await createTestCore(dataDir, { hubUrl: hub.url });
  });
  afterAll(async () => {
    await core?.close();
    await hub?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists what runs of a repository (a split set as one choice) with sizes, quantizations and the free disk', async () => {
    const repo = await call('hub.files', { repo: `${hub.url}/${GGUF_REPO}/tree/main` });
    expect(repo.revision).toBe(FIXTURE_COMMIT);
    expect(repo.choices.map((c) => [c.modelName, c.quant, c.numFiles, c.numBytes, c.hasSha256])).toEqual([
      ['Austen-Mini-F16', 'F16', 1, statSync(bundledGguf('f16')).size, true],
      ['Austen-Mini-Q8_0', 'Q8_0', 2, 1500, true],
    ]);
    expect(repo.numOtherFiles).toBe(2); // the vision projector and the README
    expect(repo.freeBytes).toBeGreaterThan(0);
    expect(repo.accessNote).toBeNull();
    // A gated repository says up front what its files will need.
    expect((await call('hub.files', { repo: BYTES_REPO })).accessNote).toMatch(
      /^this model is gated: .*HF_TOKEN/,
    );
  });

  it('refuses a missing repository, a private one, a name that is no repository and a file larger than the disk, in words', async () => {
    expect(await refusal('hub.files', { repo: 'someone/Nothing-GGUF' })).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/has no someone\/Nothing-GGUF/),
    });
    expect(await refusal('hub.files', { repo: 'someone/Private-GGUF' })).toMatchObject({
      message: expect.stringMatching(/would not show someone\/Private-GGUF: .*HF_TOKEN/),
    });
    expect(
      await refusal('hub.download', {
        repo: BYTES_REPO,
        revision: FIXTURE_COMMIT,
        filePath: 'Huge-F32.gguf',
      }),
    ).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/^not enough room: it needs [\d.]+ GiB and the disk has/),
    });
    expect(await refusal('hub.files', { repo: 'not a repo/../x' })).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/write it as owner\/name/),
    });
  });

  it('downloads a GGUF into the models folder, owner-only, checks its sha256 and lists it', async () => {
    const started = await download(GGUF_REPO, 'Austen-Mini-F16.gguf');
    const done = await finished(started.downloadId);
    expect(done).toMatchObject({ state: 'done', isVerified: true, error: null, bytesDone: done.bytesTotal });
    const file = path.join(modelsDir, 'Austen-Mini-F16.gguf');
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(readdirSync(modelsDir).filter((n) => n.endsWith('.part'))).toEqual([]);
    const listed = (await call('models.list', {})).find((m) => m.name === 'Austen-Mini-F16');
    expect(listed).toMatchObject({
      status: 'ok',
      format: 'gguf',
      source: 'models-folder',
      origin: `${GGUF_REPO} at 0123456 (${new URL(hub.url).host})`,
    });
    expect((await call('hub.files', { repo: GGUF_REPO })).choices[0]!.isInModelsFolder).toBe(true);
    expect(
      await refusal('hub.download', {
        repo: GGUF_REPO,
        revision: FIXTURE_COMMIT,
        filePath: 'Austen-Mini-F16.gguf',
      }),
    ).toMatchObject({ message: 'Austen-Mini-F16.gguf is already in the models folder' });
  });

  it('downloads ONNX variants into one folder named after the repository, each checked and listed', async () => {
    const repo = await call('hub.files', { repo: ONNX_REPO });
    expect(repo.choices.map((c) => [c.modelName, c.kind, c.quant, c.numFiles])).toEqual([
      ['Austen-Mini-ONNX:q8', 'onnx', 'q8', 5],
      ['Austen-Mini-ONNX:q4', 'onnx', 'q4', 5],
    ]);
    for (const graph of ['onnx/model_q4.onnx', 'onnx/model_q8.onnx']) {
      const done = await finished((await download(ONNX_REPO, graph)).downloadId);
      expect(done).toMatchObject({ state: 'done', isVerified: true });
    }
    const folder = path.join(modelsDir, 'Austen-Mini-ONNX');
    expect(
      readFileSync(path.join(folder, 'onnx', 'model_q4.onnx')).equals(testModelFile('onnx/model_q4.onnx')),
    ).toBe(true);
    expect(readdirSync(modelsDir).filter((n) => n.startsWith('.'))).toEqual([]); // no staging folder left
    const listed = (await call('models.list', {})).filter((m) => m.name === 'Austen-Mini-ONNX');
    expect(listed.map((m) => [m.modelId, m.status]).sort()).toEqual([
      ['Austen-Mini-ONNX:q4', 'ok'],
      ['Austen-Mini-ONNX:q8', 'ok'],
    ]);
  });

  it('resumes with an HTTP Range request after the connection drops, and the whole file still verifies', async () => {
    hub.cutNext('Resumed-Q4_K_M.gguf', 200_000);
    const done = await finished((await download(BYTES_REPO, 'Resumed-Q4_K_M.gguf')).downloadId);
    expect(done).toMatchObject({ state: 'done', isVerified: true });
    const requests = hub.fileRequests.filter((r) => r.path === 'Resumed-Q4_K_M.gguf');
    expect(requests.map((r) => r.range)).toEqual([null, expect.stringMatching(/^bytes=\d+-$/)]);
    expect(Number(/\d+/.exec(requests[1]!.range!)![0])).toBeGreaterThan(0);
    expect(readFileSync(path.join(modelsDir, 'Resumed-Q4_K_M.gguf')).equals(BIG)).toBe(true);
  });

  it('a wrong checksum fails, says so, and leaves nothing in the folder or the list', async () => {
    const done = await finished((await download(BYTES_REPO, 'Damaged-Q4_0.gguf')).downloadId);
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(/sha256 is [0-9a-f]{12}…, not the ffffffffffff… the hub lists: .*removed/);
    expect(readdirSync(modelsDir).filter((n) => n.startsWith('Damaged'))).toEqual([]);
    expect((await call('models.list', {})).some((m) => m.name.startsWith('Damaged'))).toBe(false);
  });

  it('cancel stops a download and removes its .part', async () => {
    hub.stall('Stalled-IQ3_XXS.gguf', 100_000);
    const started = await download(BYTES_REPO, 'Stalled-IQ3_XXS.gguf');
    const part = path.join(modelsDir, 'Stalled-IQ3_XXS.gguf.part');
    await vi.waitFor(() => expect(existsSync(part) && statSync(part).size).toBe(100_000));
    expect(await call('hub.cancel', { downloadId: started.downloadId })).toMatchObject({
      state: 'cancelled',
    });
    expect(existsSync(part)).toBe(false);
    expect(existsSync(path.join(modelsDir, 'Stalled-IQ3_XXS.gguf'))).toBe(false);
  });

  it('a download cut by the app closing is listed after a restart with Resume, and resumes where it stopped', async () => {
    hub.stall('Restarted-Q5_K_M.gguf', 100_000);
    await download(BYTES_REPO, 'Restarted-Q5_K_M.gguf');
    const part = path.join(modelsDir, 'Restarted-Q5_K_M.gguf.part');
    await vi.waitFor(() => expect(existsSync(part) && statSync(part).size).toBe(100_000));
    await core.close();
    expect(statSync(part).size).toBe(100_000); // kept for a resume
    hub.unstall('Restarted-Q5_K_M.gguf');
    core = await createTestCore(dataDir, { hubUrl: hub.url });
    const [kept] = (await call('hub.downloads', {})).filter((d) => d.modelName === 'Restarted-Q5_K_M');
    expect(kept).toMatchObject({ state: 'failed', canResume: true, error: expect.stringMatching(/Resume/) });
    const done = await finished((await download(kept!.repo, kept!.filePath)).downloadId);
    expect(done).toMatchObject({ state: 'done', isVerified: true });
    expect(hub.fileRequests.filter((r) => r.path === 'Restarted-Q5_K_M.gguf').map((r) => r.range)).toEqual([
      null,
      'bytes=100000-',
    ]);
    // The resumed try replaced the one the restart listed.
    const tries = (await call('hub.downloads', {})).filter((d) => d.modelName === 'Restarted-Q5_K_M');
    expect(tries.map((d) => d.state)).toEqual(['done']);
  });

  it('refuses to delete a loaded model or a bundled one; once unloaded, deletes its folder', async () => {
    cpSync(path.join(TEST_MODELS_DIR, TEST_MODEL_ID), path.join(modelsDir, 'austen-copy'), {
      recursive: true,
    });
    await call('models.list', {});
    const slot = await call('slots.prefetch', { modelId: 'austen-copy' });
    const loaded = await call('models.removal', { modelId: 'austen-copy' });
    expect(loaded.refusal).toMatch(/is loaded: unload it first/);
    expect(loaded.paths).toEqual([path.join(modelsDir, 'austen-copy')]);
    expect(loaded.numBytes).toBeGreaterThan(1_000_000);
    expect(await refusal('models.delete', { modelId: 'austen-copy' })).toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/is loaded/),
    });
    expect((await call('models.removal', { modelId: TEST_MODEL_ID })).refusal).toMatch(/ships with the app/);
    await call('slots.evict', { slotId: slot.slotId });
    await call('models.delete', { modelId: 'austen-copy' });
    expect(existsSync(path.join(modelsDir, 'austen-copy'))).toBe(false);
    expect((await call('models.list', {})).some((m) => m.name === 'austen-copy')).toBe(false);
  });

  it("deleting a GGUF removes the file and its converted folder (the conversion's cache)", async () => {
    const file = path.join(modelsDir, 'Austen-Mini-F16.gguf');
    const converted = path.join(dataDir, 'ort-graphs', 'gguf', 'austen-mini-f16-0000');
    mkdirSync(converted, { recursive: true });
    writeFileSync(path.join(converted, 'conversion.json'), JSON.stringify({ sourcePath: file }));
    const removal = await call('models.delete', { modelId: 'Austen-Mini-F16' });
    expect(removal).toMatchObject({
      paths: [file],
      numBytes: statSync(bundledGguf('f16')).size,
      refusal: null,
    });
    expect(existsSync(file)).toBe(false);
    expect(existsSync(converted)).toBe(false);
    expect((await call('models.list', {})).some((m) => m.name === 'Austen-Mini-F16')).toBe(false);
  });
});

/** A file of the test model's folder, as bytes. */
function testModelFile(relative: string): Buffer {
  return readFileSync(path.join(TEST_MODELS_DIR, TEST_MODEL_ID, relative));
}
