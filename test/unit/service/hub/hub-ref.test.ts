import { describe, expect, it } from 'vitest';
import { parseHubRef } from '../../../../src-main/service/hub/hub-ref';

const HUB = 'https://huggingface.co';

describe('naming a hub repository', () => {
  it('reads an id, a page address and a file link as the same repository', () => {
    const repo = 'bartowski/Llama-3.2-1B-Instruct-GGUF';
    expect(parseHubRef(`  ${repo} `, HUB)).toEqual({ repo, revision: null, filePath: null });
    expect(parseHubRef(`${HUB}/${repo}`, HUB)).toEqual({ repo, revision: null, filePath: null });
    expect(parseHubRef(`${HUB}/${repo}/tree/main`, HUB)).toEqual({ repo, revision: 'main', filePath: null });
    expect(parseHubRef(`${HUB}/${repo}/blob/main/sub/x-Q4_K_M.gguf?download=true`, HUB)).toEqual({
      repo,
      revision: 'main',
      filePath: 'sub/x-Q4_K_M.gguf',
    });
  });

  it('refuses what is no repository, and a link to another site, in words', () => {
    expect(parseHubRef('a/b/c', HUB)).toBeInstanceOf(Error);
    expect((parseHubRef('../etc/passwd', HUB) as Error).message).toMatch(/write it as owner\/name/);
    expect((parseHubRef('https://example.com/a/b', HUB) as Error).message).toMatch(
      /https:\/\/example.com is not the model hub this app uses/,
    );
  });
});
