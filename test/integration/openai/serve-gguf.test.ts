import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledGguf } from '../../support/gguf-fixtures';
import { peersSkipReason } from '../../support/llama-peers';

// `npm run serve` as a new user starts it, with a Q4_K_M GGUF (llama.cpp's quantizer, from the
// bundled model) in its data folder's models folder: /v1 lists it and answers a chat with it.

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const MODEL_ID = 'austen-q4_k_m:gguf';

describe.skipIf(peersSkipReason !== null)('npm run serve with a GGUF in the models folder', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ff-serve-gguf-'));
  let server: ChildProcess | null = null;
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGINT');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts the headless host on a free port; resolves with its /v1 address once it prints it. */
  function serve(): Promise<string> {
    server = spawn(
      process.execPath,
      ['--import', 'tsx', 'src-main/cli/serve.ts', '--port', '0', '--data-dir', dataDir],
      {
        cwd: REPO,
        env: { ...process.env, FIRST_FRAME_API_KEY: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    return new Promise((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const found = /OpenAI-compatible API at (http:\/\/\S+\/v1)/.exec(output);
        if (found) resolve(found[1]!);
      };
      server!.stdout!.on('data', read);
      server!.stderr!.on('data', read);
      server!.once('exit', (code) =>
        reject(new Error(`serve exited (${code}) before listening:\n${output}`)),
      );
    });
  }

  it('lists the GGUF on /v1/models and answers /v1/chat/completions with it (converted on that first request)', async () => {
    mkdirSync(path.join(dataDir, 'models'), { recursive: true });
    copyFileSync(bundledGguf('q4_k_m'), path.join(dataDir, 'models', 'austen-q4_k_m.gguf'));
    const base = await serve();
    const models = (await (await fetch(`${base}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toContain(MODEL_ID);
    const response = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL_ID,
        messages: [{ role: 'user', content: 'Tell me about the ball.' }],
        max_tokens: 16,
        temperature: 0,
      }),
    });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as {
      model: string;
      choices: Array<{ message: { content: string } }>;
      usage: { completion_tokens: number };
    };
    expect(completion.model).toBe(MODEL_ID);
    expect(completion.usage.completion_tokens).toBeGreaterThan(0);
    expect(completion.choices[0]!.message.content.trim().length).toBeGreaterThan(0);
    expect(readdirSync(path.join(dataDir, 'ort-graphs', 'gguf'))).toHaveLength(1);
  }, 240_000);
});
